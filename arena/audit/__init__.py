"""What is studied after the fact or beside the play: the move analysis, the
collusion audit of logs and the referee's probes."""
