// capture-most-java: a Scopa Arena bot in Java (grpc-java, the .proto files only).
//
// It plays a simple policy: take the settebello if it can, else sweep the
// table, else make the capture that takes the most cards, else lay its lowest
// card. The arena sends every legal move, so the bot only has to pick one.
//
//   java -jar build/scopa-bot-java.jar [--listen HOST:PORT]
//
// Without --listen it reads $SCOPA_BOT_LISTEN (default 127.0.0.1:0). Once it
// accepts calls it prints "LISTENING HOST:PORT" (with the port it got): the
// arena waits for that line when it launches the bot itself.

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.util.List;
import org.scopaarena.scopa.v1.Ack;
import org.scopaarena.scopa.v1.Card;
import org.scopaarena.scopa.v1.DealEnd;
import org.scopaarena.scopa.v1.DecisionRequest;
import org.scopaarena.scopa.v1.DecisionResponse;
import org.scopaarena.scopa.v1.EngineGrpc;
import org.scopaarena.scopa.v1.Game;
import org.scopaarena.scopa.v1.HandshakeRequest;
import org.scopaarena.scopa.v1.HandshakeResponse;
import org.scopaarena.scopa.v1.MatchEnd;
import org.scopaarena.scopa.v1.MatchStart;
import org.scopaarena.scopa.v1.Move;
import org.scopaarena.scopa.v1.ProtocolVersion;
import org.scopaarena.scopa.v1.Suit;
import org.scopaarena.scopa.v1.VariantOption;

public final class Bot extends EngineGrpc.EngineImplBase {

    static boolean isSettebello(Card card) {
        return card.getSuit() == Suit.DENARI && card.getRank() == 7;
    }

    // How much we like a move: higher is better. The four tiers of the policy
    // are far apart, so a move of a higher tier always wins.
    static int score(Move move, int tableSize) {
        int taken = move.getCapturesCount();
        if (taken == 0) {
            return -move.getCard().getRank(); // lay the lowest card
        }
        boolean settebello = isSettebello(move.getCard());
        for (Card card : move.getCapturesList()) {
            settebello = settebello || isSettebello(card);
        }
        if (settebello) {
            return 3000 + taken;
        }
        if (taken == tableSize) { // a sweep (scopa)
            return 2000 + taken;
        }
        return 1000 + taken;
    }

    static Move choose(DecisionRequest request) {
        int tableSize = request.getObservation().getTableCount();
        List<Move> moves = request.getLegalMovesList();
        Move best = moves.get(0);
        for (Move move : moves.subList(1, moves.size())) {
            if (score(move, tableSize) > score(best, tableSize)) {
                best = move;
            }
        }
        return best;
    }

    // Calls this class does not override (any added to the protocol later)
    // answer UNIMPLEMENTED, as the protocol expects.

    @Override
    public void handshake(HandshakeRequest request, StreamObserver<HandshakeResponse> out) {
        out.onNext(HandshakeResponse.newBuilder()
                .setName("capture-most-java")
                .setVersion("1.0.0")
                .setAuthor("Scopa Arena")
                .setProtocolVersion(ProtocolVersion.PROTOCOL_VERSION_1)
                .addGames(Game.SCOPA)
                .addGames(Game.SCOPA_A_QUATTRO)
                .addGames(Game.SCOPONE)
                .addGames(Game.SCOPONE_SCIENTIFICO)
                // It picks among the legal moves the arena sends, so the options that only
                // change which moves are legal are safe; the scoring ones it does not value.
                .addOptions(VariantOption.OPTION_FEWEST_CARDS)
                .addOptions(VariantOption.OPTION_LEFTOVERS_TO_LAST_PLAYER)
                .build());
        out.onCompleted();
    }

    // The answer to one decision, on decide and on play alike.
    static DecisionResponse answer(DecisionRequest request) {
        if (request.getLegalMovesCount() == 0) {
            throw Status.INVALID_ARGUMENT.withDescription("no legal moves").asRuntimeException();
        }
        return DecisionResponse.newBuilder().setMove(choose(request)).build();
    }

    @Override
    public void decide(DecisionRequest request, StreamObserver<DecisionResponse> out) {
        DecisionResponse response;
        try {
            response = answer(request);
        } catch (StatusRuntimeException error) {
            out.onError(error);
            return;
        }
        out.onNext(response);
        out.onCompleted();
    }

    // Decide as a stream: every decision of a match, one at a time, each
    // answered as decide answers it. onCompleted is the arena half-closing the
    // stream (the match is over: end it OK); onError is the arena cancelling it
    // (a decision ran out of time), with nothing to release. With a cancel
    // handler set, an answer that loses a race with a cancellation is dropped
    // (without one, grpc-java throws it back at onNext).
    @Override
    public StreamObserver<DecisionRequest> play(StreamObserver<DecisionResponse> out) {
        ((ServerCallStreamObserver<DecisionResponse>) out).setOnCancelHandler(() -> { });
        return new StreamObserver<DecisionRequest>() {
            private boolean ended; // by our error status, or cancelled: ignore the rest

            @Override
            public void onNext(DecisionRequest request) {
                if (ended) {
                    return;
                }
                try {
                    out.onNext(answer(request));
                } catch (StatusRuntimeException error) {
                    ended = true;
                    out.onError(error); // ends the stream with decide's status
                }
            }

            @Override
            public void onError(Throwable cancelled) {
                ended = true;
            }

            @Override
            public void onCompleted() {
                if (!ended) {
                    out.onCompleted();
                }
            }
        };
    }

    // The notifications: nothing to remember, the observation is complete.
    @Override
    public void matchStarted(MatchStart request, StreamObserver<Ack> out) {
        acknowledge(out);
    }

    @Override
    public void dealEnded(DealEnd request, StreamObserver<Ack> out) {
        acknowledge(out);
    }

    @Override
    public void matchEnded(MatchEnd request, StreamObserver<Ack> out) {
        acknowledge(out);
    }

    private static void acknowledge(StreamObserver<Ack> out) {
        out.onNext(Ack.getDefaultInstance());
        out.onCompleted();
    }

    // Where to listen. grpc-java on Debian cannot serve a Unix socket (Netty's
    // native epoll library is not packaged), so when the arena offers one (in
    // its sandbox) the bot takes the loopback port it offers beside it; the
    // arena bridges its socket to that port.
    static String listenAddress(String[] args) {
        if (args.length == 2 && args[0].equals("--listen")) {
            return args[1];
        }
        if (args.length != 0) {
            throw new IllegalArgumentException("usage: java -jar scopa-bot-java.jar [--listen HOST:PORT]");
        }
        String address = System.getenv().getOrDefault("SCOPA_BOT_LISTEN", "127.0.0.1:0");
        if (address.startsWith("unix:")) {
            address = System.getenv().getOrDefault("SCOPA_BOT_LISTEN_TCP", "127.0.0.1:0");
        }
        return address;
    }

    static InetSocketAddress parseAddress(String address) {
        int colon = address.lastIndexOf(':');
        if (colon < 0 || !address.substring(colon + 1).matches("[0-9]{1,5}")) {
            throw new IllegalArgumentException("not HOST:PORT: " + address);
        }
        // A host name is resolved here, once; an unknown one is an error now.
        InetSocketAddress where = new InetSocketAddress(
                address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
        if (where.isUnresolved()) {
            throw new IllegalArgumentException("unknown host in " + address);
        }
        return where;
    }

    public static void main(String[] args) throws Exception {
        String address;
        InetSocketAddress where;
        try {
            address = listenAddress(args);
            where = parseAddress(address);
        } catch (IllegalArgumentException error) { // bad arguments, address or port
            System.err.println(error.getMessage());
            System.exit(2);
            return;
        }

        // Netty names its channels after a hardware address; the sandbox has
        // none (loopback only), and Netty would warn in the bot's output. Any
        // value will do, since the names only tell channels apart in logs.
        System.setProperty("io.netty.machineId", "02:00:00:00:00:01");

        Server server;
        try {
            server = NettyServerBuilder.forAddress(where)
                    .maxInboundMessageSize(64 * 1024)
                    .addService(new Bot())
                    .build()
                    .start();
        } catch (java.io.IOException error) {
            System.err.println("cannot listen on " + address + ": " + error.getMessage());
            System.exit(1);
            return;
        }

        // Show the port we got (port 0 asks for any free one). The arena waits
        // for this line, so it must leave now: System.out's println flushes,
        // and the flush keeps that true if the line is ever written otherwise.
        System.out.println("LISTENING " + where.getHostString() + ":" + server.getPort());
        System.out.flush();

        // SIGTERM (what the arena sends) runs this hook: finish the calls in
        // flight, then let the JVM exit.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.shutdown();
            try {
                server.awaitTermination();
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        }));
        server.awaitTermination();
    }
}
