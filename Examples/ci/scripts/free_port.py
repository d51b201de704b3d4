# Prints a loopback port nothing listens on now: the kernel picks it.
import socket

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    print(s.getsockname()[1])
