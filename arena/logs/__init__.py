"""A match log: written as the match goes (record), checked and re-played
(replay), and shown as text (render) or as a self-contained HTML page
(viewer)."""
