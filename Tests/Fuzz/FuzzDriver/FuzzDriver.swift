import Foundation

/// A libFuzzer test function: examines one input and returns 0.
public typealias FuzzTest = @convention(c) (UnsafePointer<UInt8>, Int) -> CInt

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
private func runLibFuzzer(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: FuzzTest
) -> CInt
#endif

/// The `main` of every fuzz target. Built with `-DFUZZING` (and `-sanitize=fuzzer`) it hands
/// `test` to libFuzzer's driver: SwiftPM names an executable's entry point `<Target>_main`, so
/// libFuzzer's own `main` cannot be the one that runs. Without it, it replays the inputs named
/// on the command line (e.g. a crash file) through `test`.
public func runFuzzTarget(_ test: FuzzTest) -> Never {
    #if FUZZING
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(runLibFuzzer(&argc, &argv, test))
    #else
    for path in CommandLine.arguments.dropFirst() {
        guard let data = FileManager.default.contents(atPath: path) else {
            FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
            exit(1)
        }
        _ = data.withUnsafeBytes { bytes in
            test(bytes.bindMemory(to: UInt8.self).baseAddress ?? UnsafePointer(bitPattern: 1)!, bytes.count)
        }
        print("ok \(path)")
    }
    exit(0)
    #endif
}
