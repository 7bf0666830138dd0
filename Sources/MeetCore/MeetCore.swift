// The MeetCore module; see DESIGN.md.
