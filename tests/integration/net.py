# The guest's loopback network, as a user meets it: python3's http.server
# and curl talk over 127.0.0.1 and ::1 inside vkernel, on the very port a
# host server of the test holds, which proves that the guest's ports are
# its own and that no host socket serves them (the host server sees no
# connection, and the guest's bind of its port succeeds).  Without a
# route, an address off the loopback is unreachable; a host server is
# refused.  Python's asyncio streams, its socketserver over UDP and
# busybox nc talk between guest processes.
#
# With --net=host (the host* cases) the guest's Internet sockets are the
# host's: curl gets a body from the test's own server on the host's
# 127.0.0.1 or ::1, which sees the connection; a guest server listens on
# a host port the test connects to; a UDP round trip and asyncio reach
# host servers; poll, epoll and select wake when a host server answers; the guest sees the host's /etc/resolv.conf.  The lock-down
# holds socket calls only with the option (hostpolicy).  glibc's resolver
# asks the test's DNS server on the host's 127.0.0.1:53 (hostdns).  ip
# and /proc/net/route show the host's interfaces, addresses and routes
# (hostifaces).
#
# usage: net.py VKERNEL CASE [WHO]
#   CASE http4, http6, refused, unreach, asyncio, udpserver, nc, hosthttp4,
#   hosthttp6, hostlisten, hostudp, hostasyncio, hostrefused, hostpolicy,
#   hostraw, hostdns, hostpoll, hostifaces
#   WHO root (default): vkernel and the guest as the test's user;
#   guestuser: the guest drops to uid 65534 itself; hostuser: vkernel
#   runs as an unprivileged host user (asuser.sh).
import os, re, shutil, socket, subprocess, sys, tempfile, threading

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


def vk(script, opts=()):
    cmd = ["sh", "-c", script]
    if who == "guestuser":
        # A guest of an unprivileged vkernel is no root to begin with.
        cmd = ["python3", "-c", "import os, sys\n"
               "if os.getuid() == 0:\n"
               " os.setgroups([])\n"
               " os.setresgid(65534, 65534, 65534)\n"
               " os.setresuid(65534, 65534, 65534)\n"
               "os.execvp(sys.argv[1], sys.argv[1:])"] + cmd
    cmd = [vkernel, "run", "--timeout", "60"] + list(opts) + ["--"] + cmd
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


def python_case(script, want, opts=()):
    st, out = vk("python3 -c '%s'" % script, opts)
    if st != 0 or "result: " + want not in out:
        fail("want %r, status 0" % ("result: " + want))


def nc():
    st, out = vk("busybox nc -l -p 5555 > /tmp/got & "
                 "for i in $(seq 50); do echo hello-nc | "
                 "busybox nc 127.0.0.1 5555 && break; sleep 0.1; done; "
                 "wait; echo result: $(cat /tmp/got)")
    if "result: hello-nc" not in out:
        fail("nc's message did not come through")


def host_http(family, addr, body):
    """A host server answering each connection with body, for 30 s at
    most: (socket, peers seen)."""
    s, seen = host_server(family, addr)

    def answer():
        for _ in range(300):
            while seen:
                c = seen.pop()
                peers.append(c.getpeername()[0])
                c.settimeout(5)
                try:
                    c.recv(4096)
                    c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n"
                              b"\r\n%s" % (len(body), body))
                except OSError:
                    pass
                c.close()
            threading.Event().wait(0.1)
        s.close()

    peers = []
    threading.Thread(target=answer, daemon=True).start()
    return s, peers


def host_curl(family, addr, url_host):
    hs, peers = host_http(family, addr, b"from-the-host-server")
    st, out = vk("curl -s http://%s:%d/; echo; echo curl=$?" %
                 (url_host, hs.getsockname()[1]), ["--net=host"])
    if "from-the-host-server" not in out or "curl=0" not in out:
        fail("curl did not get the host server's body")
    if len(peers) != 1:
        fail("the host's server saw %d connections, not 1" % len(peers))


def host_refused():
    """Without --net=host the host's server is not reached."""
    hs, peers = host_http(socket.AF_INET, "127.0.0.1", b"x")
    threading.Event().wait(0.3)
    st, out = vk("curl -s http://127.0.0.1:%d/; echo curl=$?" %
                 hs.getsockname()[1])
    threading.Event().wait(0.3)
    if "curl=7" not in out or peers:
        fail("want curl=7 and no connection, saw %d" % len(peers))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


LISTEN = r"""
import socket, select, sys
l = socket.socket()
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", PORT))
l.listen(1)
print("listening", flush=True)
if select.select([l], [], [], 20)[0]:
    c, a = l.accept()
    c.sendall(b"guest-says:" + c.recv(100))
    c.close()
    print("result: served", a[0])
"""


def host_listen():
    port = free_port()
    got = []

    def client():
        for _ in range(200):
            try:
                c = socket.create_connection(("127.0.0.1", port), 1)
                c.sendall(b"hi")
                c.settimeout(10)
                got.append(c.recv(100))
                return
            except OSError:
                threading.Event().wait(0.1)

    t = threading.Thread(target=client, daemon=True)
    t.start()
    st, out = vk("python3 -c '%s'" % LISTEN.replace("PORT", str(port)),
                 ["--net=host"])
    t.join(30)
    if got != [b"guest-says:hi"] or "result: served 127.0.0.1" not in out:
        fail("the host's client got %r" % got)


HOSTUDP = r"""
import socket
c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
c.settimeout(10)
c.sendto(b"ping", ("127.0.0.1", PORT))
d, a = c.recvfrom(100)
print("result:", d.decode(), a[0], a[1] == PORT)
"""


def host_udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    s.settimeout(30)
    port = s.getsockname()[1]

    def echo():
        try:
            d, a = s.recvfrom(100)
            s.sendto(d.upper(), a)
        except OSError:
            pass

    threading.Thread(target=echo, daemon=True).start()
    python_case(HOSTUDP.replace("PORT", str(port)), "PING 127.0.0.1 True",
                ["--net=host"])


HOSTASYNC = r"""
import asyncio
async def main():
    r, w = await asyncio.open_connection("127.0.0.1", PORT)
    w.write(b"GET / HTTP/1.0\r\n\r\n")
    await w.drain()
    data = await asyncio.wait_for(r.read(), 10)
    print("result:", data.split(b"\r\n\r\n")[1].decode())
    w.close()
asyncio.run(main())
"""


def host_asyncio():
    hs, peers = host_http(socket.AF_INET, "127.0.0.1", b"async-body")
    python_case(HOSTASYNC.replace("PORT", str(hs.getsockname()[1])),
                "async-body", ["--net=host"])


POLLS = r"""
import select, socket, time
def wait(kind, s):
    if kind == "select":
        return select.select([s], [], [], 10)[0] == [s]
    p = select.poll() if kind == "poll" else select.epoll()
    p.register(s.fileno(), select.POLLIN if kind == "poll" else
        select.EPOLLIN)
    return len(p.poll(10 if kind == "epoll" else 10000)) == 1
r = []
for kind in ("poll", "epoll", "select"):
    s = socket.create_connection(("127.0.0.1", PORT))
    t = time.time()
    ok = wait(kind, s)
    took = time.time() - t
    r.append(kind + ("=" + s.recv(10).decode() if ok and 0.3 < took < 5
        else "=%s:%.1fs" % (ok, took)))
print("result:", " ".join(r))
"""


def host_poll():
    """poll, epoll and select wait for a host socket, and wake when the
    host's server answers, half a second later (not at their 10 s
    timeout)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(4)
    s.settimeout(30)

    def late():
        try:
            for _ in range(3):
                c, _ = s.accept()
                threading.Event().wait(0.5)
                c.sendall(b"late")
                c.close()
        except OSError:
            pass

    threading.Thread(target=late, daemon=True).start()
    python_case(POLLS.replace("PORT", str(s.getsockname()[1])),
                "poll=late epoll=late select=late", ["--net=host"])


NET_CALLS = ["socket", "connect", "bind", "listen", "accept4", "sendto",
             "recvfrom", "getsockopt", "setsockopt", "getsockname",
             "getpeername", "shutdown"]


def host_policy():
    def calls(opts):
        r = subprocess.run([vkernel, "policy"] + opts, check=True,
                           stdout=subprocess.PIPE).stdout.decode()
        return {l.split()[0] for l in r.splitlines() if l[:1].isalpha()}

    off, on = calls([]), calls(["--net=host"])
    if off & set(NET_CALLS):
        fail("socket calls without --net=host: %s" % (off & set(NET_CALLS)))
    if set(NET_CALLS) - on:
        fail("missing with --net=host: %s" % (set(NET_CALLS) - on))


RAW = r"""
import errno, socket
def t(*a):
    try:
        socket.socket(*a).close()
        return "ok"
    except OSError as e:
        return errno.errorcode[e.errno]
print("result:", t(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP),
    t(socket.AF_PACKET, socket.SOCK_RAW, 0))
"""


def host_raw():
    """No raw or packet socket; the host's resolv.conf is the guest's."""
    raw = "ESOCKTNOSUPPORT" if who == "root" and os.getuid() == 0 \
        else "EPERM"
    python_case(RAW, raw + " EAFNOSUPPORT", ["--net=host"])
    with open("/etc/resolv.conf") as f:
        resolv = f.read()
    st, out = vk("cat /etc/resolv.conf", ["--net=host"])
    if st != 0 or resolv.strip() not in out:
        fail("the guest's /etc/resolv.conf is not the host's")


def dns_server():
    """A host DNS server on 127.0.0.1:53 answering every A question with
    192.0.2.7 for 30 s: its socket, or None where port 53 is not ours."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.bind(("127.0.0.1", 53))
    except OSError:
        return None
    s.settimeout(0.2)

    def serve():
        for _ in range(150):
            try:
                q, a = s.recvfrom(512)
            except OSError:
                continue
            end = q.index(b"\0", 12) + 5
            qtype = q[end - 4:end - 2]
            r = q[:2] + b"\x81\x80" + q[4:6] + \
                (b"\0\1" if qtype == b"\0\1" else b"\0\0") + \
                b"\0\0\0\0" + q[12:end]
            if qtype == b"\0\1":
                r += b"\xc0\x0c\0\1\0\1\0\0\0\x3c\0\4" + \
                    bytes([192, 0, 2, 7])
            s.sendto(r, a)
        s.close()

    threading.Thread(target=serve, daemon=True).start()
    return s


def host_dns():
    """glibc's resolver inside asks the host's DNS server (a guest root
    points /etc/resolv.conf at it: the guest user may not)."""
    if who == "guestuser" or os.getuid() != 0:
        print("skip: the guest must be root, the test too (port 53)")
        sys.exit(77)
    if dns_server() is None:
        print("skip: port 53 of 127.0.0.1 is taken")
        sys.exit(77)
    st, out = vk("echo nameserver 127.0.0.1 > /etc/resolv.conf && "
                 "echo result: $(getent hosts vk-name.test)",
                 ["--net=host"])
    if "result: 192.0.2.7" not in out:
        fail("the name did not resolve through the host's DNS server")


IFACES = ("ip addr; ip link; ip route show table main; "
          "ip route show table local; ip -6 route show table main; "
          "ip -6 route show table local; ip route get 198.51.100.1; "
          "ip -6 route get 2001:db8::1; ip route get 127.0.0.1; "
          "cat /proc/net/route")


def host_ifaces():
    """The host's interfaces, addresses and routes are the guest's, as
    ip and /proc/net/route show them (statistics aside)."""
    want = subprocess.run(["sh", "-c", IFACES], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT).stdout.decode()
    st, out = vk(IFACES + " 2>&1", ["--net=host"])
    # ip route get gives the asker's uid, the guest's own: not compared.
    want, out = (re.sub(r"uid \d+ ", "uid N ", x) for x in (want, out))
    if out.strip() != want.strip():
        fail("inside:\n%s\non the host:\n%s" % (out, want))


HOST_CASES = {
    "hostifaces": host_ifaces,
    "hostpoll": host_poll,
    "hostdns": host_dns,
    "hosthttp4": lambda: host_curl(socket.AF_INET, "127.0.0.1", "127.0.0.1"),
    "hosthttp6": lambda: host_curl(socket.AF_INET6, "::1", "[::1]"),
    "hostrefused": host_refused,
    "hostlisten": host_listen,
    "hostudp": host_udp,
    "hostasyncio": host_asyncio,
    "hostpolicy": host_policy,
    "hostraw": host_raw,
}

if case in HOST_CASES:
    HOST_CASES[case]()
elif case == "http4":
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
