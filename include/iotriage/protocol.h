/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The wire contract between iotriaged and its clients (the iotriage TUI,
 * scripts, socat): newline-delimited JSON over a stream Unix socket.
 * doc/protocol.md is the prose form of this file; change both together.
 *
 * BUMP IOT_PROTOCOL_VERSION WITH ANY INCOMPATIBLE CHANGE: a removed or renamed
 * command, key or error code, a changed meaning or type. Adding a command, an
 * optional request key, a reply key or an error code is compatible and does
 * not bump it; clients ignore keys they do not know.
 *
 * Framing: one request per line, one JSON object, at most
 * IOT_PROTO_MAX_LINE bytes including the '\n'. The daemon answers every
 * request with exactly one line, in order. Each reply has "ok"; a request's
 * "id" (UTF-8 text without NUL, or an integer within +-(2^63 - 1); any other
 * id is bad_request and not echoed) is echoed as "id". On failure:
 *   {"ok":false,"id":...,"error":{"code":"bad_json","message":"..."}}
 * Requests are UTF-8 (else bad_json); integers past +-(2^63 - 1) are
 * bad_request, never clamped. Every reply line is valid UTF-8 JSON: bytes
 * of quoted host data that are not UTF-8 become U+FFFD, and C0, DEL and C1
 * controls are \u-escaped.
 *
 * Requests ("cmd"):
 *   {"cmd":"hello","version":1}
 *       -> {"ok":true,"version":1,"server":"iotriaged 0.1.0","interval_ms":1000,
 *           "history_s":600}
 *       A different version gets error "version" and the connection is closed.
 *       hello is optional for scripts; clients should send it first.
 *   {"cmd":"snapshot"}
 *       -> {"ok":true,"sample":{SAMPLE}}   the latest sample
 *   {"cmd":"subscribe","every":N}        N >= 1, default 1: every Nth sample
 *       -> {"ok":true,"subscribed":true,"every":N,"interval_ms":1000}
 *       then, until unsubscribe or close, one event line per pushed sample:
 *          {"ok":true,"event":"sample","sample":{SAMPLE}}
 *       Events carry no "id". They are the same bytes for every subscriber.
 *   {"cmd":"unsubscribe"} -> {"ok":true,"subscribed":false}
 *   {"cmd":"history","seconds":S}        samples taken in the last S seconds
 *   {"cmd":"history","since":ID}         samples with "sample" id > ID
 *   {"cmd":"history","at":MS,"step_ms":S} with --record: the one interval
 *                                        of S ms ending at the recorded sample
 *                                        at MS (epoch ms), as replay --step
 *       -> {"ok":true,"count":N,"first":ID,"last":ID,"samples":[{SAMPLE},...]}
 *          oldest first, on one line; "first"/"last" are null when N is 0.
 *   {"cmd":"status"}
 *       -> {"ok":true,"version":1,"server":...,"pid":..,"uptime_s":..,
 *           "interval_ms":..,"history_s":..,"samples":..,"overruns":..,
 *           "sample_errors":..,"tick_us":{"last":..,"avg":..,"max":..},
 *           "clients":..,"max_clients":..,"subscribers":..,
 *           "history":{"count":..,"bytes":..,"first":..,"last":..},
 *           "root":"/","core_only":false,"sources":{"stat":{"available":true},...}}
 *
 *   {"cmd":"worker.start","args":["--filename=/dev/loop0","--rw=randread",...]}
 *   {"cmd":"worker.stop"}  {"cmd":"worker.status"}     (privileged)
 *       one bench job at a time, fio options as iotriage bench takes them;
 *       while one runs, subscribers also get one line per sample tick:
 *          {"ok":true,"event":"worker","worker":{...}}
 *       see doc/protocol.md "Workers".
 *   {"cmd":"apply","suggestion":ID}      (privileged)
 *       -> {"ok":true,"applied":true,"written":N,"pending":N,"message":"..."}
 *       the advisor's suggestion ID on the latest interval, journalled
 *   {"cmd":"undo"[,"suggestion":ID]}     (privileged; without ID: everything)
 *       -> {"ok":true,"undone":true,"written":N,"pending":N,"message":"..."}
 *       see doc/protocol.md "apply, undo".
 *
 * {SAMPLE} is the document of doc/json.md, byte for byte what encode_sample()
 * wrote once for that sample.
 */
#ifndef IOTRIAGE_PROTOCOL_H
#define IOTRIAGE_PROTOCOL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IOT_PROTOCOL_VERSION 1

/* A request line, '\n' included. Longer: error "too_long", then close. */
#define IOT_PROTO_MAX_LINE (64 * 1024)

/* history "step_ms": the widest interval asked of a recording (a day) */
#define IOT_PROTO_MAX_STEP_MS (86400 * 1000)

/*
 * What a client accepts from whatever answers on the socket (an impostor
 * included), so that it neither buffers without end nor waits forever:
 * - a reply or event line of at most IOT_PROTO_MAX_REPLY bytes: one sample
 *   is ~14 KiB on 2 CPUs and 9 disks and hundreds of KiB on the biggest
 *   hosts, a worker's report a few KiB;
 * - a history reply of at most IOT_PROTO_MAX_HISTORY_REPLY bytes: the live
 *   view asks for 600 s, 6000 samples at the fastest interval;
 * - each reply whole within IOT_PROTO_CLIENT_TIMEOUT_MS of asking; a
 *   subscriber that has received nothing for that long and three sample
 *   periods (interval_ms times every) gives up on the connection.
 * Over a limit the client closes the connection with an error.
 */
#define IOT_PROTO_MAX_REPLY	    (64u << 20)
#define IOT_PROTO_MAX_HISTORY_REPLY (256u << 20)
#define IOT_PROTO_CLIENT_TIMEOUT_MS 10000

/*
 * Pushed samples a subscriber may leave unread before it is disconnected
 * (and the daemon logs it): bounds the memory a stalled reader pins and
 * keeps sampling independent of it. At ~14 KiB a sample (2 CPUs, 9 disks)
 * this is ~70 samples, 7 s at the fastest interval; the kernel's socket
 * buffers hold a few more.
 */
#define IOT_PROTO_MAX_PUSH_BACKLOG (1024 * 1024)

/*
 * A client's first request line must be complete this long after it
 * connected, and every later line this long after its first byte; else the
 * client is closed. Without it, half-sent lines held every slot forever.
 */
#define IOT_PROTO_REQUEST_TIMEOUT_MS 10000

/* Replies (not pushed samples) left unread this long, with nothing of them
 * read meanwhile: the client is closed. */
#define IOT_PROTO_REPLY_TIMEOUT_MS 30000

/* Of --max-clients, the slots only uid 0 and the daemon's own uid may take
 * (fewer when --max-clients is under 8: half of it). */
#define IOT_PROTO_ROOT_SLOTS 4

/*
 * Error codes, as the strings in "error":{"code":...}. APPEND ONLY: never
 * renumber, rename or reuse one; scripts match on the string.
 */
enum iot_proto_error {
	IOT_ERR_BAD_JSON,    /* "bad_json": the line is not one JSON object */
	IOT_ERR_BAD_REQUEST, /* "bad_request": missing/invalid "cmd" or argument */
	IOT_ERR_UNKNOWN_CMD, /* "unknown_cmd": no such command */
	IOT_ERR_VERSION,     /* "version": hello with another version; then close */
	IOT_ERR_TOO_LONG,    /* "too_long": line over IOT_PROTO_MAX_LINE; then close */
	IOT_ERR_BUSY,	     /* "busy": --max-clients reached; then close */
	IOT_ERR_NO_SAMPLE,   /* "no_sample": nothing sampled yet */
	IOT_ERR_PERMISSION,  /* "permission": the peer's credentials do not allow it */
	IOT_ERR_INTERNAL,    /* "internal": out of memory and the like */
	IOT_ERR_REFUSED,     /* "refused": worker.start's target fails the bench's safety checks */
	IOT_ERR_WORKER_RUNNING, /* "worker_running": worker.start while a job runs */
	IOT_ERR_NO_WORKER,	/* "no_worker": worker.stop with no job running */
	IOT_ERR__COUNT
};

static inline const char *iot_proto_error_name(enum iot_proto_error e)
{
	static const char *const names[IOT_ERR__COUNT] = {
		[IOT_ERR_BAD_JSON] = "bad_json",
		[IOT_ERR_BAD_REQUEST] = "bad_request",
		[IOT_ERR_UNKNOWN_CMD] = "unknown_cmd",
		[IOT_ERR_VERSION] = "version",
		[IOT_ERR_TOO_LONG] = "too_long",
		[IOT_ERR_BUSY] = "busy",
		[IOT_ERR_NO_SAMPLE] = "no_sample",
		[IOT_ERR_PERMISSION] = "permission",
		[IOT_ERR_INTERNAL] = "internal",
		[IOT_ERR_REFUSED] = "refused",
		[IOT_ERR_WORKER_RUNNING] = "worker_running",
		[IOT_ERR_NO_WORKER] = "no_worker",
	};

	return (unsigned)e < IOT_ERR__COUNT ? names[e] : "internal";
}

/* Where the daemon listens when --socket is not given, and where the client
 * looks first: root's runtime directory, else the user's. */
#define IOT_PROTO_SYSTEM_DIR	"/run/iotriage"
#define IOT_PROTO_SYSTEM_SOCKET "/run/iotriage/iotriaged.sock"
#define IOT_PROTO_USER_SOCKET	"iotriage.sock" /* under $XDG_RUNTIME_DIR */

/*
 * The default socket path for the calling user: IOT_PROTO_SYSTEM_SOCKET when
 * euid is 0, else $XDG_RUNTIME_DIR/iotriage.sock. Returns 0, -ENOENT when
 * XDG_RUNTIME_DIR is unset or not absolute, -ENAMETOOLONG when the path does
 * not fit buf (or a sockaddr_un). buf is written only on success.
 */
static inline int iot_proto_default_socket(char *buf, size_t size)
{
	char tmp[108]; /* sun_path on Linux, NUL included */
	const char *xdg;
	int n;

	if (size > sizeof(tmp))
		size = sizeof(tmp);
	if (geteuid() == 0) {
		if (sizeof(IOT_PROTO_SYSTEM_SOCKET) > size)
			return -ENAMETOOLONG;
		memcpy(buf, IOT_PROTO_SYSTEM_SOCKET, sizeof(IOT_PROTO_SYSTEM_SOCKET));
		return 0;
	}
	xdg = getenv("XDG_RUNTIME_DIR");
	if (!xdg || xdg[0] != '/')
		return -ENOENT;
	n = snprintf(tmp, sizeof(tmp), "%s/%s", xdg, IOT_PROTO_USER_SOCKET);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	memcpy(buf, tmp, (size_t)n + 1);
	return 0;
}

#endif
