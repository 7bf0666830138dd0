print("meetupd")
