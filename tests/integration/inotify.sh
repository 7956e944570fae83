#!/bin/bash
# inotify as programs use it inside vkernel: coreutils' tail -F follows a
# log on a tmpfs through a rotation (a new file under the old name), with
# a poll interval long enough that only inotify can keep it in time;
# inotifywait reports what a shell does in a directory (on a tmpfs and on
# the overlay root) as it does natively; node's fs.watch sees a file made
# and renamed.  As guest root, and with vkernel run by an unprivileged
# host user.  Usage: inotify.sh VKERNEL CASE
set -u
vk=$1
case_=$2
asuser="$(dirname "$0")/asuser.sh"

fail() {
	echo "FAIL: $case_: $*" >&2
	exit 1
}

follow='cd /dev/shm && rm -f log log.1 out && echo one > log &&
	{ tail -F -s 30 log > out 2>/dev/null & t=$!; } &&
	w() { for i in $(seq 100); do grep -q "$1" out && return 0; sleep 0.05; done; return 1; } &&
	w one && echo two >> log && w two && mv log log.1 &&
	echo three > log && w three && echo four >> log && w four;
	kill $t; wait $t 2>/dev/null; cat out; rm -f log log.1 out'
want_tail='one
two
three
four'

# inotifywait on directory $1/w: the events a shell's commands raise.
wait_cmds='d=$1/iw.$$; mkdir -p $d/w && cd $d/w || exit 1
	inotifywait -m --format "%e %f" . > ../out 2> ../err & t=$!
	for i in $(seq 200); do grep -q established ../err && break; sleep 0.05; done
	touch a; echo x >> a; cat a > /dev/null; chmod 600 a; mv a b
	mkdir s; rmdir s; rm b
	for i in $(seq 200); do grep -q "DELETE b" ../out && break; sleep 0.05; done
	kill $t; wait $t 2>/dev/null; cat ../out; cd /; rm -rf $d'
want_wait='CREATE a
OPEN a
ATTRIB a
CLOSE_WRITE,CLOSE a
OPEN a
MODIFY a
CLOSE_WRITE,CLOSE a
OPEN a
ACCESS a
CLOSE_NOWRITE,CLOSE a
ATTRIB a
MOVED_FROM a
MOVED_TO b
CREATE,ISDIR s
DELETE,ISDIR s
DELETE b'

# node's fs.watch (libuv's inotify) on a directory: a file made, renamed.
node_js='const fs = require("fs"), path = require("path");
const d = fs.mkdtempSync(process.argv[1] + "/nw"); const seen = [];
const w = fs.watch(d, (ev, name) => {
	seen.push(ev + " " + name);
	if (name === "b" && ev === "rename") { w.close();
		fs.unlinkSync(path.join(d, "b")); fs.rmdirSync(d);
		clearTimeout(t); console.log([...new Set(seen)].join("\n")); }
});
fs.writeFileSync(path.join(d, "a"), "x");
setTimeout(() => fs.renameSync(path.join(d, "a"), path.join(d, "b")), 100);
const t = setTimeout(() => { console.log("timeout: " + seen);
	process.exit(1); }, 20000);'
want_node='rename a
change a
rename b'

case $case_ in
inotifywait_tmpfs|inotifywait_overlay|inotifywait_user)
	command -v inotifywait >/dev/null || { echo "skip: no inotifywait"; exit 77; }
	dir=/dev/shm
	[ "$case_" = inotifywait_overlay ] && dir=/var/tmp
	want=$want_wait
	if [ "$case_" = inotifywait_user ]; then
		got=$(timeout 60 "$asuser" "$vk" run -- bash -c "$wait_cmds" sh "$dir" 2>&1) || fail "status $?: $got"
	else
		got=$(timeout 60 "$vk" run -- bash -c "$wait_cmds" sh "$dir" 2>&1) || fail "status $?: $got"
	fi
	;;
node_watch)
	command -v node >/dev/null || { echo "skip: no node"; exit 77; }
	want=$want_node
	got=$(timeout 60 "$vk" run -- node -e "$node_js" /dev/shm 2>&1) || fail "status $?: $got"
	;;
tail_F)
	want=$want_tail
	got=$(timeout 60 "$vk" run -- bash -c "$follow" 2>&1) || fail "status $?: $got"
	;;
tail_F_user)
	want=$want_tail
	got=$(timeout 60 "$asuser" "$vk" run -- bash -c "$follow" 2>&1) || fail "status $?: $got"
	;;
*)
	fail "unknown case"
	;;
esac
[ "$got" = "${want-}" ] || fail "got:
$got"
exit 0
