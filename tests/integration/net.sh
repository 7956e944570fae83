#!/bin/bash
# The guest's own network as its tools show it: hostname(1) and getent(1)
# over the sandbox's names and /etc/hosts (default and --hostname, run by
# root and by an unprivileged host user), the host's /etc/hosts,
# /etc/hostname and host name untouched by a guest root that changes its
# own, and the /proc/net files and iproute2's ip addr, ip link and
# ip route (over NETLINK_ROUTE), which show lo alone, and ss (over
# NETLINK_SOCK_DIAG).
# Usage: net.sh VKERNEL CASE
set -u
vk=$1
case_=$2
here=$(dirname "$0")
work=$(mktemp -d /tmp/vk-net.XXXXXX)
trap 'rm -rf "$work"' EXIT

failed=0
fail()
{
	echo "FAIL: net $case_: $*" >&2
	failed=1
}

# expect WANT CMD...: the vkernel run's stdout must be WANT, status 0.
expect()
{
	local want=$1 out st
	shift
	out=$("$@" 2>"$work/err")
	st=$?
	if [ "$st" != 0 ] || [ "$out" != "$want" ]; then
		fail "$*: status $st, output '$out', want '$want'"
		sed 's/^/  stderr: /' "$work/err" >&2
	fi
}

# The names inside, by default; $1 runs vkernel (a prefix such as asuser).
names()
{
	expect "vkernel
vkernel
vkernel
vkernel" "$@" "$vk" run -- sh -c 'hostname; hostname -f; uname -n; cat /etc/hostname'
	expect "127.0.1.1       vkernel" "$@" "$vk" run -- sh -c 'getent hosts $(hostname)'
	expect "localhost" "$@" "$vk" run -- sh -c \
		'getent hosts localhost | awk "{print \$2}" | sort -u'
	# getaddrinfo: with loopback addresses alone, AI_ADDRCONFIG narrows
	# nothing (and ahostsv4 finds nothing), as in Linux's new namespaces.
	expect "127.0.0.1
::1" "$@" "$vk" run -- sh -c \
		'getent ahosts localhost | awk "{print \$1}" | sort -u'
}

case $case_ in
names)
	names ;;
names_user)
	names "$here/asuser.sh" ;;
hostname_opt)
	expect "box.example.com
box.example.com
box
box.example.com" "$vk" run --hostname box.example.com -- \
		sh -c 'hostname; hostname -f; hostname -s; uname -n'
	expect "127.0.1.1       box.example.com box" "$vk" run \
		--hostname box.example.com -- getent hosts box
	long=$(printf '%064d' 0)
	expect "$long" "$vk" run --hostname "$long" -- hostname
	for bad in "a b" "" "$long"x "a/b" "x;y"; do
		"$vk" run --hostname "$bad" -- true >/dev/null 2>"$work/err"
		st=$?
		[ "$st" = 2 ] && [ "$(wc -l <"$work/err")" = 1 ] ||
			fail "--hostname '$bad': status $st, $(cat "$work/err")"
	done ;;
host_untouched)
	# The guest runs as vkernel's caller: root only when that is root.
	[ "$(id -u)" = 0 ] || { echo "skip: guest root needs vkernel run as root"; exit 77; }
	before=$(sha256sum /etc/hosts /etc/hostname 2>/dev/null; hostname)
	# Guest root changes its names and its /etc/hosts; the host's stay.
	expect "evil
9.9.9.9 evil" "$vk" run -- sh -c 'hostname evil && hostname &&
		echo "9.9.9.9 evil" >> /etc/hosts && tail -1 /etc/hosts &&
		echo other > /etc/hostname'
	"$here/asuser.sh" "$vk" run -- sh -c 'hostname evil2;
		echo 9.9.9.9 x >> /etc/hosts' >/dev/null 2>&1
	after=$(sha256sum /etc/hosts /etc/hostname 2>/dev/null; hostname)
	[ "$before" = "$after" ] || fail "the host changed: '$before' -> '$after'"
	# Nor does a guest's bind of the host's /etc see the sandbox's file.
	expect "$(sha256sum </etc/hosts)" "$vk" run --bind /etc:/mnt -- \
		sh -c 'sha256sum </mnt/hosts' ;;
proc_net)
	# Inside, lo is all there is, and no inet socket exists yet.
	expect "    lo:" "$vk" run -- sh -c 'tail -n +3 /proc/net/dev | cut -c1-7'
	expect "00000000000000000000000000000001 01 80 10 80       lo" \
		"$vk" run -- cat /proc/net/if_inet6
	expect "1 1 1 1 1" "$vk" run -- sh -c 'for f in route tcp tcp6 udp udp6;
		do wc -l </proc/net/$f; done | xargs'
	expect "32768	60999" "$vk" run -- cat /proc/sys/net/ipv4/ip_local_port_range ;;
sockstat)
	# /proc/net/sockstat{,6} and snmp count the sandbox's sockets: a
	# listener and a connection (TCP inuse 3), an unbound IPv6 TCP socket
	# (alloc only), a bound UDP socket of each family; none after close.
	expect "sockets: used 6
TCP: inuse 3 orphan 0 tw 0 alloc 4
UDP: inuse 1
TCP6: inuse 0
UDP6: inuse 1
Tcp: 1 200 120000 -1 0 0 0 0 2 0 0 0 0 0 0
sockets: used 0
TCP: inuse 0 orphan 0 tw 0 alloc 0
UDP6: inuse 0" "$vk" run -- python3 -c '
import socket
def show(files, rows):
    for f in files:
        for l in open("/proc/net/" + f):
            if l.split(":")[0] in rows and not l.startswith("Tcp: Rto"):
                print(" ".join(l.split()[:9] if l.startswith("TCP:") else l.split()[:3]
                    if l.startswith(("UDP", "TCP6")) else l.split()))
a = socket.socket(); a.bind(("127.0.0.1", 0)); a.listen()
b = socket.create_connection(a.getsockname()); c, _ = a.accept()
t6 = socket.socket(socket.AF_INET6)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
u6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); u6.bind(("::1", 0))
show(["sockstat", "sockstat6", "snmp"], ["sockets", "TCP", "UDP", "TCP6", "UDP6", "Tcp"])
for s in (a, b, c, t6, u, u6):
    s.close()
show(["sockstat", "sockstat6"], ["sockets", "TCP", "UDP6"])
' ;;
ip_addr)
	# iproute2 over NETLINK_ROUTE: lo alone, up, with both addresses,
	# as Linux shows a new network namespace once lo is up.
	want="1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000
    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00
    inet 127.0.0.1/8 scope host lo
       valid_lft forever preferred_lft forever
    inet6 ::1/128 scope host 
       valid_lft forever preferred_lft forever"
	expect "$want" "$vk" run -- ip addr
	expect "$want" "$here/asuser.sh" "$vk" run -- ip addr show dev lo
	expect "inet 127.0.0.1/8" "$vk" run -- sh -c \
		'ip -4 -o addr | sed "s/.*\(inet [^ ]*\).*/\1/"' ;;
ip_link)
	expect "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000
    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00" "$vk" run -- ip link
	expect "lo" "$vk" run -- sh -c 'ip -o link | cut -d" " -f2 | tr -d :' ;;
ifconfig)
	# busybox ifconfig asks the interface ioctls (SIOCGIFCONF, flags,
	# address, mask, MTU, hardware address) of an AF_INET socket.
	expect "lo        Link encap:Local Loopback  
          inet addr:127.0.0.1  Mask:255.0.0.0
          inet6 addr: ::1/128 Scope:Host
          UP LOOPBACK RUNNING  MTU:65536  Metric:1" \
		"$vk" run -- sh -c 'busybox ifconfig | head -4' ;;
ip_route)
	# The main tables are empty; the local one holds lo's routes.
	expect "" "$vk" run -- ip route
	expect "" "$vk" run -- ip -6 route
	expect "local 127.0.0.0/8 dev lo proto kernel scope host src 127.0.0.1 
local 127.0.0.1 dev lo proto kernel scope host src 127.0.0.1 
broadcast 127.255.255.255 dev lo proto kernel scope link src 127.0.0.1 " \
		"$vk" run -- ip route show table local
	expect "local ::1 dev lo proto kernel metric 0 pref medium" \
		"$vk" run -- ip -6 route show table local
	# One lookup each (RTM_GETROUTE without a dump), as Linux answers
	# them in a namespace with lo alone; the guest's uid is its caller's.
	uid=$(id -u)
	expect "local 127.1.2.3 dev lo src 127.0.0.1 uid $uid 
    cache <local> 
broadcast 127.255.255.255 dev lo src 127.0.0.1 uid $uid 
    cache <local,brd> 
local ::1 from :: dev lo table local proto kernel src ::1 metric 0 pref medium" \
		"$vk" run -- sh -c 'ip route get 127.1.2.3 &&
		ip route get 127.255.255.255 && ip -6 route get ::1'
	expect "local 127.0.0.1 dev lo proto kernel scope host src 127.0.0.1 " \
		"$vk" run -- ip route get fibmatch 127.0.0.1
	# Off the loopback, no route (ip exits 2).
	expect "RTNETLINK answers: Network is unreachable
RTNETLINK answers: Network is unreachable" \
		"$vk" run -- sh -c 'ip route get 192.0.2.1 2>&1;
		ip route get 2001:db8::1 2>&1; true'
	expect "2" "$vk" run -- sh -c 'ip route get 192.0.2.1 2>/dev/null; echo $?'
	expect "local 127.0.0.1 dev lo src 127.0.0.1 uid $("$here/asuser.sh" id -u) 
    cache <local> " "$here/asuser.sh" "$vk" run -- ip route get 127.0.0.1 ;;
ifioctl)
	# Python's socket.if_nameindex() (SIOCGIFCONF's successor over
	# netlink in glibc) and fcntl.ioctl's SIOCGIFADDR, SIOCGIFFLAGS and
	# SIOCGIFCONF with a NULL buffer, by root and by an unprivileged host
	# user; the set is refused to the guest user.
	script='import fcntl, os, socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
req = struct.pack("16s24x", b"lo")
addr = fcntl.ioctl(s, 0x8915, req)[20:24]
flags = struct.unpack("H", fcntl.ioctl(s, 0x8913, req)[16:18])[0]
n = struct.unpack("i", fcntl.ioctl(s, 0x8912, struct.pack("iiQ", 0, 0, 0))[:4])[0]
print(socket.if_nameindex(), socket.inet_ntoa(addr), hex(flags), n)
if os.getuid() == 0:
    os.setresuid(65534, 65534, 65534)
try:
    fcntl.ioctl(s, 0x8914, struct.pack("16sH22x", b"lo", flags))
except PermissionError:
    print("EPERM")'
	want="[(1, 'lo')] 127.0.0.1 0x49 40
EPERM"
	expect "$want" "$vk" run -- python3 -c "$script"
	expect "$want" "$here/asuser.sh" "$vk" run -- python3 -c "$script" ;;
ss)
	# ss over NETLINK_SOCK_DIAG: no inet socket yet, and a listening
	# local socket, with nothing on stderr (no fallback to /proc/net).
	expect "Netid State Recv-Q Send-Q Local Address:Port Peer Address:PortProcess" \
		"$vk" run -- ss -tuln
	[ -s "$work/err" ] && fail "ss -tuln said: $(cat "$work/err")"
	expect "u_str LISTEN /tmp/vk-ss.sock" "$vk" run -- python3 -c '
import socket, subprocess
s = socket.socket(socket.AF_UNIX)
s.bind("/tmp/vk-ss.sock")
s.listen(3)
out = subprocess.run(["ss", "-xlH"], capture_output=True, text=True)
for l in out.stdout.splitlines():
    f = l.split()
    if "/tmp/vk-ss.sock" in l:
        print(f[0], f[1], f[4])
print(out.stderr, end="")'
	[ -s "$work/err" ] && fail "ss -xl said: $(cat "$work/err")"
	expect "UNCONN 0 0 [::1]:5353 *:*
LISTEN 0 5 127.0.0.1:8123 0.0.0.0:*" "$vk" run -- python3 -c '
import socket, subprocess
s = socket.socket()
s.bind(("127.0.0.1", 8123))
s.listen(5)
u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
u.bind(("::1", 5353))
out = subprocess.run(["ss", "-tulnH"], capture_output=True, text=True)
for l in out.stdout.splitlines():
    print(*l.split()[1:6])
print(out.stderr, end="")' ;;
*)
	echo "unknown case $case_" >&2
	exit 2 ;;
esac
[ "$failed" = 0 ] && echo "ok: net $case_"
exit "$failed"
