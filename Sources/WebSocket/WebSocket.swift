// The WebSocket module; see DESIGN.md.
