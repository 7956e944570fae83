# The guest's loopback network, as a user meets it: python3's http.server
# and curl talk over 127.0.0.1 and ::1 inside vkernel, on the very port a
# host server of the test holds, which proves that the guest's ports are
# its own and that no host socket serves them (the host server sees no
# connection, and the guest's bind of its port succeeds).  Without a
# route, an address off the loopback is unreachable; a host server is
# refused.  Python's asyncio streams, its socketserver over UDP and
# busybox nc talk between guest processes.
#
# usage: net.py VKERNEL CASE [WHO]
#   CASE http4, http6, refused, unreach, asyncio, udpserver, nc
#   WHO root (default): vkernel and the guest as the test's user;
#   guestuser: the guest drops to uid 65534 itself; hostuser: vkernel
#   runs as an unprivileged host user (asuser.sh).
import os, shutil, socket, subprocess, sys, tempfile, threading

vkernel, case = sys.argv[1:3]
who = sys.argv[3] if len(sys.argv) > 3 else "root"
here = os.path.dirname(os.path.abspath(__file__))


def host_server(family, addr):
    """A host TCP server on a port of its own: (socket, connections)."""
    s = socket.socket(family, socket.SOCK_STREAM)
    s.bind((addr, 0))
    s.listen(4)
    s.settimeout(0.2)
    seen = []

    def serve():
        while s.fileno() >= 0:
            try:
                c, _ = s.accept()
                seen.append(c)
            except OSError:
                pass

    threading.Thread(target=serve, daemon=True).start()
    return s, seen


def vk(script):
    cmd = ["sh", "-c", script]
    if who == "guestuser":
        cmd = ["python3", "-c", "import os, sys; os.setgroups([]); "
               "os.setresgid(65534, 65534, 65534); "
               "os.setresuid(65534, 65534, 65534); "
               "os.execvp(sys.argv[1], sys.argv[1:])"] + cmd
    cmd = [vkernel, "run", "--timeout", "60", "--"] + cmd
    if who == "hostuser":
        cmd = [os.path.join(here, "asuser.sh")] + cmd
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    out = r.stdout.decode(errors="replace")
    sys.stderr.write(r.stderr.decode(errors="replace")[-4000:])
    print(out[-4000:])
    return r.returncode, out


def fail(why):
    print("FAIL: " + why)
    sys.exit(1)


def http(family, addr, url_host):
    d = tempfile.mkdtemp()
    os.chmod(d, 0o755)
    with open(os.path.join(d, "vk-net-marker.txt"), "w") as f:
        f.write("x\n")
    hs, seen = host_server(family, addr)
    port = hs.getsockname()[1]
    url = "http://%s:%d/" % (url_host, port)
    try:
        st, out = vk(
            "python3 -m http.server %d --bind %s --directory %s "
            ">/dev/null 2>&1 & "
            "for i in $(seq 100); do curl -sf %s && break; sleep 0.1; done; "
            "st=$?; kill $!; exit $st" % (port, addr, d, url))
    finally:
        shutil.rmtree(d)
    if st != 0:
        fail("vkernel exited %d" % st)
    if "vk-net-marker.txt" not in out or "Directory listing" not in out:
        fail("no listing from the guest's server")
    if seen:
        fail("the host's server got %d connection(s)" % len(seen))
    hs.close()


def refused():
    hs, seen = host_server(socket.AF_INET, "127.0.0.1")
    st, out = vk("curl -s http://127.0.0.1:%d/; echo curl=$?" %
                 hs.getsockname()[1])
    if "curl=7" not in out:
        fail("curl did not say 'could not connect'")
    if seen:
        fail("the host's server got %d connection(s)" % len(seen))
    hs.close()


UNREACH = r"""
import errno, socket
def t(f):
    try:
        f()
        return "ok"
    except OSError as e:
        return errno.errorcode[e.errno]
r = [t(lambda: socket.create_connection(("192.0.2.1", 80))),
     t(lambda: socket.create_connection(("2001:db8::1", 80))),
     t(lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(
         b"x", ("192.0.2.1", 53))),
     t(lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).connect(
         ("8.8.8.8", 53)))]
print("result:", " ".join(r))
"""


def unreach():
    st, out = vk("python3 -c '%s'" % UNREACH)
    want = "result: ENETUNREACH ENETUNREACH ENETUNREACH ENETUNREACH"
    if want not in out:
        fail("want %r" % want)


ASYNCIO = r"""
import asyncio
async def handle(r, w):
    w.write(b"echo:" + await r.readline())
    await w.drain()
    w.close()
async def main():
    srv = await asyncio.start_server(handle, "::1", 0)
    port = srv.sockets[0].getsockname()[1]
    r, w = await asyncio.open_connection("::1", port)
    w.write(b"hi\n")
    await w.drain()
    print("result:", (await r.readline()).decode().strip())
    w.close()
    srv.close()
    await srv.wait_closed()
asyncio.run(main())
"""

UDPSERVER = r"""
import socket, socketserver, threading
class H(socketserver.BaseRequestHandler):
    def handle(self):
        data, sock = self.request
        sock.sendto(data.upper(), self.client_address)
s = socketserver.UDPServer(("127.0.0.1", 0), H)
threading.Thread(target=s.serve_forever, daemon=True).start()
c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
c.settimeout(10)
c.sendto(b"ping", s.server_address)
print("result:", c.recvfrom(100)[0].decode())
s.shutdown()
"""


def python_case(script, want):
    st, out = vk("python3 -c '%s'" % script)
    if st != 0 or "result: " + want not in out:
        fail("want %r, status 0" % ("result: " + want))


def nc():
    st, out = vk("busybox nc -l -p 5555 > /tmp/got & "
                 "for i in $(seq 50); do echo hello-nc | "
                 "busybox nc 127.0.0.1 5555 && break; sleep 0.1; done; "
                 "wait; echo result: $(cat /tmp/got)")
    if "result: hello-nc" not in out:
        fail("nc's message did not come through")


if case == "http4":
    http(socket.AF_INET, "127.0.0.1", "127.0.0.1")
elif case == "http6":
    http(socket.AF_INET6, "::1", "[::1]")
elif case == "refused":
    refused()
elif case == "unreach":
    unreach()
elif case == "asyncio":
    python_case(ASYNCIO, "echo:hi")
elif case == "udpserver":
    python_case(UDPSERVER, "PING")
elif case == "nc":
    nc()
else:
    fail("unknown case " + case)
print("ok: net/" + case)
