/* Preloaded into a Swift program run under valgrind (Benchmarks/feed-instructions.sh).
 *
 * Swift's async main parks the main thread in libdispatch's _dispatch_sig_thread, which
 * blocks every signal and calls sigsuspend; valgrind 3.19 dies there ("the 'impossible'
 * happened", SIGSEGV in its own code). Parking the thread in pause() instead, with signals
 * unblocked, changes nothing else: the thread never runs any code of the program again. */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    (void)mask;
    sigset_t none;
    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &none, 0);
    for (;;) pause();
}
