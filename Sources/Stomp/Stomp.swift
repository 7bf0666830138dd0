// The Stomp module; see DESIGN.md.
