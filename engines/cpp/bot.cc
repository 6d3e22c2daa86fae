// capture-most-cpp: a Scopa Arena bot in C++ (gRPC C++, the .proto files only).
//
// It plays a simple policy: take the settebello if it can, else sweep the
// table, else make the capture that takes the most cards, else lay its lowest
// card. The arena sends every legal move, so the bot only has to pick one.
//
//   scopa-bot-cpp [--listen ADDRESS]   (default $SCOPA_BOT_LISTEN or 127.0.0.1:0)
//
// ADDRESS is HOST:PORT or unix:/PATH. Once it accepts calls it prints
// "LISTENING ADDRESS" (with the port it got) and flushes: the arena waits for
// that line when it launches the bot itself.
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "arena/wire/v1/engine.grpc.pb.h"

namespace v1 = scopa::v1;

namespace {

bool IsSettebello(const v1::Card& card) {
  return card.suit() == v1::DENARI && card.rank() == 7;
}

// How much we like a move: higher is better. The four tiers of the policy
// are far apart, so a move of a higher tier always wins.
int Score(const v1::Move& move, int table_size) {
  const int taken = move.captures_size();
  if (taken == 0) {
    return -static_cast<int>(move.card().rank());  // lay the lowest card
  }
  bool settebello = IsSettebello(move.card());
  for (const v1::Card& card : move.captures()) {
    settebello = settebello || IsSettebello(card);
  }
  if (settebello) return 3000 + taken;
  if (taken == table_size) return 2000 + taken;  // a sweep (scopa)
  return 1000 + taken;
}

// The policy needs only the legal moves and the table's size. The observation
// holds everything else a seat may know (scopa.proto, Observation), including
// what a player remembers of the deal, for a strategy that wants it:
//   obs.captured_cards(side).cards()   each side's captured cards (side 0, 1)
//   obs.has_last_capture_seat()        false while nobody has captured yet;
//   obs.last_capture_seat()            then the seat that captured last
//   obs.opening_table()                the table as dealt at the deal's start
// and the target and deal limit in obs.variant().
v1::Move Choose(const v1::DecisionRequest& request) {
  const int table_size = request.observation().table_size();
  const v1::Move* best = &request.legal_moves(0);
  for (const v1::Move& move : request.legal_moves()) {
    if (Score(move, table_size) > Score(*best, table_size)) best = &move;
  }
  return *best;
}

// The answer to one decision, on Decide and on Play alike.
grpc::Status Answer(const v1::DecisionRequest& request, v1::DecisionResponse* out) {
  if (request.legal_moves_size() == 0) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no legal moves");
  }
  *out->mutable_move() = Choose(request);
  return grpc::Status::OK;
}

class Engine final : public v1::Engine::Service {
  grpc::Status Handshake(grpc::ServerContext*, const v1::HandshakeRequest*,
                         v1::HandshakeResponse* out) override {
    out->set_name("capture-most-cpp");
    out->set_version("1.0.0");
    out->set_author("Scopa Arena");
    out->set_protocol_version(v1::PROTOCOL_VERSION_1);
    for (v1::Game game : {v1::SCOPA, v1::SCOPA_A_QUATTRO, v1::SCOPONE,
                          v1::SCOPONE_SCIENTIFICO}) {
      out->add_games(game);
    }
    // It picks among the legal moves the arena sends, so the options that only
    // change which moves are legal are safe; the scoring ones it does not value.
    out->add_options(v1::OPTION_FEWEST_CARDS);
    out->add_options(v1::OPTION_LEFTOVERS_TO_LAST_PLAYER);
    return grpc::Status::OK;
  }

  grpc::Status Decide(grpc::ServerContext*, const v1::DecisionRequest* request,
                      v1::DecisionResponse* out) override {
    return Answer(*request, out);
  }

  // Decide as a stream: every decision of a match, one at a time, each
  // answered as Decide answers it. Read fails when the arena half-closes the
  // stream (the match is over: end it OK) or cancels it (a decision ran out of
  // time: the status is not sent, but returning frees this thread).
  grpc::Status Play(grpc::ServerContext*,
                    grpc::ServerReaderWriter<v1::DecisionResponse, v1::DecisionRequest>* stream)
      override {
    v1::DecisionRequest request;
    while (stream->Read(&request)) {
      v1::DecisionResponse out;
      const grpc::Status status = Answer(request, &out);
      if (!status.ok()) return status;  // ends the stream, as Decide would fail
      if (!stream->Write(out)) break;   // cancelled meanwhile
    }
    return grpc::Status::OK;
  }

  // The notifications: nothing to remember, the observation is complete.
  grpc::Status MatchStarted(grpc::ServerContext*, const v1::MatchStart*,
                            v1::Ack*) override {
    return grpc::Status::OK;
  }
  grpc::Status DealEnded(grpc::ServerContext*, const v1::DealEnd*, v1::Ack*) override {
    return grpc::Status::OK;
  }
  grpc::Status MatchEnded(grpc::ServerContext*, const v1::MatchEnd*, v1::Ack*) override {
    return grpc::Status::OK;
  }
};

std::string ListenAddress(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--listen") return argv[i + 1];
  }
  const char* env = std::getenv("SCOPA_BOT_LISTEN");
  return env != nullptr && *env != '\0' ? env : "127.0.0.1:0";
}

}  // namespace

int main(int argc, char** argv) {
  // SIGTERM and SIGINT are taken by a thread of ours (below), not by whichever
  // thread the kernel picks: block them before gRPC starts its threads.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  const std::string address = ListenAddress(argc, argv);
  Engine engine;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&engine);
  builder.SetMaxReceiveMessageSize(64 * 1024);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || (address.rfind("unix:", 0) != 0 && port == 0)) {
    std::cerr << "cannot listen on " << address << std::endl;
    return 1;
  }

  // Show the port we got (127.0.0.1:0 asks for any free one).
  std::string shown = address;
  if (address.rfind("unix:", 0) != 0) {
    shown = address.substr(0, address.rfind(':')) + ":" + std::to_string(port);
  }
  std::cout << "LISTENING " << shown << std::endl;  // std::endl flushes

  std::thread stopper([&server, &signals] {
    int received = 0;
    sigwait(&signals, &received);
    server->Shutdown();
  });
  server->Wait();
  stopper.join();
  return 0;
}
