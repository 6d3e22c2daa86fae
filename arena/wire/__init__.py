"""The protobuf boundary: generated messages (v1/) and the only modules that
build or read them: convert/ (one module per schema: game values, the engine
protocol, logs, spectator events), service.py (the competition server's answers), client.py
(the competition server's requests). protocol.py names the limits both sides
share and the one shape of a match id a bot is told, and loads no protobuf."""
