# Shared by the hang tests: a FUSE mount (bindfs, -o direct_io: no page
# cache) whose server can be SIGSTOPped, so that every read through it
# waits until it is SIGCONTed. Source it; then
#   fuse_start BACKDIR MOUNTPOINT   0, or 1 with FUSE_WHY set (the caller skips)
#   kill -STOP "$FUSE_PID" / kill -CONT "$FUSE_PID"
#   fuse_stop                       in the EXIT trap: resumed, unmounted, ended
FUSE_PID=""
FUSE_MNT=""
FUSE_WHY=""
fuse_start() {
	[ -c /dev/fuse ] || { FUSE_WHY="no /dev/fuse"; return 1; }
	command -v bindfs >/dev/null || { FUSE_WHY="no bindfs (scripts/deps-debian.txt)"; return 1; }
	FUSE_MNT=$2
	bindfs -f -o direct_io "$1" "$FUSE_MNT" 2>"$1/.bindfs.err" &
	FUSE_PID=$!
	for i in $(seq 50); do
		mountpoint -q "$FUSE_MNT" && return 0
		sleep 0.1
	done
	FUSE_WHY="bindfs did not mount: $(cat "$1/.bindfs.err")"
	return 1
}
fuse_stop() {
	[ -n "$FUSE_PID" ] && kill -CONT "$FUSE_PID" 2>/dev/null
	if [ -n "$FUSE_MNT" ]; then
		for i in 1 2 3 4 5; do
			mountpoint -q "$FUSE_MNT" || break
			umount "$FUSE_MNT" 2>/dev/null && break
			sleep 0.2
		done
		mountpoint -q "$FUSE_MNT" && umount -l "$FUSE_MNT"
	fi
	[ -n "$FUSE_PID" ] && kill "$FUSE_PID" 2>/dev/null
	return 0
}
