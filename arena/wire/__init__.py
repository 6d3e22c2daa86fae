"""The protobuf boundary: generated messages (v1/) and the one module that
converts between them and rules values (convert.py)."""
