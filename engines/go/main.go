// capture-most-go: a Scopa Arena bot in Go (grpc-go, the .proto files only).
//
// It plays a simple policy: take the settebello if it can, else sweep the
// table, else make the capture that takes the most cards, else lay its lowest
// card. The arena sends every legal move, so the bot only has to pick one.
//
//	scopa-bot-go [-listen ADDRESS]   (default $SCOPA_BOT_LISTEN or 127.0.0.1:0)
//
// ADDRESS is HOST:PORT or unix:/PATH. Once it accepts calls it prints
// "LISTENING ADDRESS" (with the port it got): the arena waits for that line
// when it launches the bot itself.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "scopabot/arena/wire/v1"
)

func isSettebello(card *pb.Card) bool {
	return card.GetSuit() == pb.Suit_DENARI && card.GetRank() == 7
}

// score says how much we like a move: higher is better. The four tiers of
// the policy are far apart, so a move of a higher tier always wins.
func score(move *pb.Move, tableSize int) int {
	taken := len(move.GetCaptures())
	if taken == 0 {
		return -int(move.GetCard().GetRank()) // lay the lowest card
	}
	settebello := isSettebello(move.GetCard())
	for _, card := range move.GetCaptures() {
		settebello = settebello || isSettebello(card)
	}
	switch {
	case settebello:
		return 3000 + taken
	case taken == tableSize: // a sweep (scopa)
		return 2000 + taken
	default:
		return 1000 + taken
	}
}

// choose needs only the legal moves and the table's size. The observation
// holds everything else a seat may know (scopa.proto, Observation), including
// what a player remembers of the deal, for a strategy that wants it:
//
//	obs.GetCapturedCards()[side].GetCards()  each side's captured cards (side 0, 1)
//	obs.LastCaptureSeat                      nil while nobody has captured yet, then
//	                                         the seat that captured last (GetLastCaptureSeat
//	                                         reads 0 for nil: test for nil first)
//	obs.GetOpeningTable()                    the table as dealt at the deal's start
//
// and the target and deal limit in obs.GetVariant().
func choose(request *pb.DecisionRequest) *pb.Move {
	tableSize := len(request.GetObservation().GetTable())
	moves := request.GetLegalMoves()
	best := moves[0]
	for _, move := range moves[1:] {
		if score(move, tableSize) > score(best, tableSize) {
			best = move
		}
	}
	return best
}

type engine struct {
	// Answers UNIMPLEMENTED for any call added to the protocol later.
	pb.UnimplementedEngineServer
}

func (engine) Handshake(context.Context, *pb.HandshakeRequest) (*pb.HandshakeResponse, error) {
	return &pb.HandshakeResponse{
		Name:            "capture-most-go",
		Version:         "1.0.0",
		Author:          "Scopa Arena",
		ProtocolVersion: pb.ProtocolVersion_PROTOCOL_VERSION_1,
		Games: []pb.Game{
			pb.Game_SCOPA, pb.Game_SCOPA_A_QUATTRO, pb.Game_SCOPONE, pb.Game_SCOPONE_SCIENTIFICO,
		},
		// It picks among the legal moves the arena sends, so the options that only
		// change which moves are legal are safe; the scoring ones it does not value.
		Options: []pb.VariantOption{
			pb.VariantOption_OPTION_FEWEST_CARDS, pb.VariantOption_OPTION_LEFTOVERS_TO_LAST_PLAYER,
		},
	}, nil
}

// answer is the answer to one decision, on Decide and on Play alike.
func answer(request *pb.DecisionRequest) (*pb.DecisionResponse, error) {
	if len(request.GetLegalMoves()) == 0 {
		return nil, status.Error(codes.InvalidArgument, "no legal moves")
	}
	return &pb.DecisionResponse{Move: choose(request)}, nil
}

func (engine) Decide(_ context.Context, request *pb.DecisionRequest) (*pb.DecisionResponse, error) {
	return answer(request)
}

// Play is Decide as a stream: every decision of a match, one at a time, each
// answered as Decide answers it. Recv returns io.EOF when the arena
// half-closes the stream (the match is over: end it OK), and the CANCELLED
// error when it cancels it (a decision ran out of time): returning that ends
// the handler, which is all a cancelled stream needs.
func (engine) Play(stream pb.Engine_PlayServer) error {
	for {
		request, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		response, err := answer(request)
		if err != nil {
			return err // ends the stream with Decide's status
		}
		if err := stream.Send(response); err != nil {
			return err
		}
	}
}

// The notifications: nothing to remember, the observation is complete.
func (engine) MatchStarted(context.Context, *pb.MatchStart) (*pb.Ack, error) {
	return &pb.Ack{}, nil
}

func (engine) DealEnded(context.Context, *pb.DealEnd) (*pb.Ack, error) { return &pb.Ack{}, nil }

func (engine) MatchEnded(context.Context, *pb.MatchEnd) (*pb.Ack, error) { return &pb.Ack{}, nil }

func main() {
	defaultAddress := os.Getenv("SCOPA_BOT_LISTEN")
	if defaultAddress == "" {
		defaultAddress = "127.0.0.1:0"
	}
	address := flag.String("listen", defaultAddress, "HOST:PORT or unix:/PATH to serve on")
	flag.Parse()

	var listener net.Listener
	var err error
	if path := strings.TrimPrefix(*address, "unix:"); path != *address {
		listener, err = net.Listen("unix", path)
	} else {
		listener, err = net.Listen("tcp", *address)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cannot listen on %s: %v\n", *address, err)
		os.Exit(1)
	}

	server := grpc.NewServer(grpc.MaxRecvMsgSize(64 * 1024))
	pb.RegisterEngineServer(server, engine{})

	// Show the port we got (127.0.0.1:0 asks for any free one). os.Stdout is
	// not buffered in Go, so the line leaves at once.
	shown := *address
	if listener.Addr().Network() == "tcp" {
		shown = listener.Addr().String()
	}
	fmt.Println("LISTENING " + shown)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		server.GracefulStop()
	}()
	if err := server.Serve(listener); err != nil {
		fmt.Fprintf(os.Stderr, "serve: %v\n", err)
		os.Exit(1)
	}
}
