// The MeetServer module; see DESIGN.md.
