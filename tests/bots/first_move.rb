# A Scopa Arena bot in Ruby (Debian's ruby-grpc): it plays the first legal
# move. It shows that a Ruby runtime plays in the sandbox unchanged.
#
#   ruby -I GENERATED first_move.rb
#
# GENERATED holds the code protoc made from proto/arena/wire/v1 with
# --ruby_out and grpc_ruby_plugin (tests/transport/test_runtimes.py makes it).
require 'grpc'
require 'arena/wire/v1/engine_services_pb'

# The Engine service: every call the arena makes, answered simply.
class FirstMove < Scopa::V1::Engine::Service
  def handshake(_request, _call)
    Scopa::V1::HandshakeResponse.new(
      name: 'first-move-ruby', version: '1', author: 'Scopa Arena',
      protocol_version: :PROTOCOL_VERSION_1
    )
  end

  def decide(request, _call)
    Scopa::V1::DecisionResponse.new(move: request.legal_moves.first)
  end

  def match_started(_request, _call) = Scopa::V1::Ack.new
  def deal_ended(_request, _call) = Scopa::V1::Ack.new
  def match_ended(_request, _call) = Scopa::V1::Ack.new
end

address = ENV.fetch('SCOPA_BOT_LISTEN', '127.0.0.1:0')
server = GRPC::RpcServer.new
port = server.add_http2_port(address, :this_port_is_insecure)
server.handle(FirstMove)
shown = address.start_with?('unix:') ? address : address.sub(/:0\z/, ":#{port}")
Thread.new do
  server.wait_till_running
  $stdout.puts "LISTENING #{shown}"
  $stdout.flush
end
%w[TERM INT].each { |signal| trap(signal) { Thread.new { server.stop } } }
server.run_till_terminated
