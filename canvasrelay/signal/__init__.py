"""`canvas signal`: the rendezvous where a room's host and its guests find each other (sealed
offers and answers on a topic), the Redis bus that joins several instances, TURN credentials
for registered rooms, and the metrics. `canvas serve` runs one of its own when no `--signal`
is given; this package never imports the server."""
