module scopabot

go 1.19

// The versions Debian bookworm packages (golang-google-grpc-dev,
// golang-google-protobuf-dev). The build does not download them: `make`
// points vendor/ at Debian's copies in /usr/share/gocode/src.
require (
	google.golang.org/grpc v1.33.3
	google.golang.org/protobuf v1.28.1
)
