// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --metrics-listen: /metrics for Prometheus, served by libmicrohttpd inside
 * the daemon's one epoll loop (MHD's own epoll fd is one more watch; the
 * loop's epoll_wait also ends when MHD_get_timeout() or the earliest request
 * deadline says so): no thread, so a scrape gets the latest sample the loop
 * holds, with no lock and without reading /proc again. Read-only; bounded
 * connections, request memory and time. doc/prometheus.md, doc/security.md.
 *
 * What MHD does not give, done here: a deadline for a whole request (MHD's
 * connection timeout counts idle time only, so one header byte every few
 * seconds would hold a connection for hours), a connection cap that sheds
 * the oldest unfinished request instead of refusing the newcomer (all of
 * 127/8 is this host: a per-address limit alone stops nobody), and one
 * encoded body per sample and format, whatever the scrape rate. A shed or
 * late connection is shutdown(2) here and closed by MHD when it next runs
 * (it reads the end of the stream): its fd is never closed under MHD.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <syslog.h>
#include <unistd.h>

#include <microhttpd.h>

#include "daemon.h"
#include "encode_openmetrics.h"

/*
 * Bounds: a scraper or two per host, each with a small GET. Past
 * METRICS_MAX_CONNECTIONS the oldest unfinished request is shed; MHD's own
 * limit, above it, only bounds a burst arriving within one loop batch.
 */
#define METRICS_MAX_CONNECTIONS	 16
#define METRICS_MHD_CONNECTIONS	 32
#define METRICS_MAX_PER_IP	 8
#define METRICS_HEADER_MAX_BYTES (14 * 1024) /* more: 431 */
/*
 * Deadlines, each for a whole state, whatever the trickle: a request's
 * headers from its start (the accept, or a kept-alive connection's next
 * request line), a reply (Prometheus's default scrape timeout), idle
 * between requests on a kept-alive connection.
 */
#define METRICS_REQUEST_S   5
#define METRICS_REPLY_S	    10
#define METRICS_KEEPALIVE_S 30
/*
 * The scrape-rate bound: in each 100 ms window at most this many new
 * connections plus requests, and this many MHD runs; past either, MHD's fd
 * leaves the loop's epoll until the window ends (the kernel holds what
 * comes meanwhile). 200 requests a second is a hundred Prometheus servers
 * at 0.5 s; a flood costs the daemon a bounded share of a CPU instead of
 * whatever the flooder can send (doc/PERFORMANCE.md).
 */
#define METRICS_WINDOW_MS   100
#define METRICS_WINDOW_WORK 20
#define METRICS_WINDOW_RUNS 50
/* what the kernel holds while the port is paused: a scraper's connection
 * waits there for the next window rather than have its SYN dropped */
#define METRICS_BACKLOG 128
/* MHD's per-connection pool: the headers, their parsed table and the reply's
 * headers; past it MHD answers 431 itself */
#define METRICS_REQUEST_MEM_BYTES (32 * 1024)

/* Where a connection is, each with its deadline from start_ns. */
enum mh_state {
	MH_HEADERS, /* accepted, or a request line came: METRICS_REQUEST_S */
	MH_ANSWER,  /* headers in, being answered: METRICS_REPLY_S */
	MH_IDLE,    /* kept alive after a reply: METRICS_KEEPALIVE_S */
};

/* One per connection, MHD's socket context. */
struct mh_conn {
	struct mh_conn *prev, *next;
	int fd;
	enum mh_state state;
	int64_t start_ns; /* when it entered its state */
	bool shed;	  /* shut down: MHD closes it when it runs */
};

#define MH_FORMATS 2 /* OM_PROMETHEUS, OM_OPENMETRICS */

/* One encoded body per format, for the sample it was rendered from. */
struct mh_cached {
	struct MHD_Response *resp;
	uint64_t sample; /* d->samples when rendered */
};

struct metrics_http {
	struct watch w; /* first: epoll's data.ptr; fd is MHD's epoll fd */
	struct MHD_Daemon *mhd;
	int listen_fd;
	struct mh_conn *conns; /* newest first */
	unsigned nconns;
	struct mh_cached cache[MH_FORMATS];
	int64_t window_ns; /* the rate window's start */
	unsigned window_work, window_runs;
	bool paused; /* MHD's fd out of the loop's epoll until the window ends */
	uint64_t scrapes, renders, shed, late, throttled;
};

/*
 * "PORT", "ADDR:PORT" or "[ADDR6]:PORT" -> a socket address. Only a port:
 * 127.0.0.1, so nothing is exposed beyond the host unless asked. 0 or
 * -EINVAL.
 */
int metrics_http_parse_addr(const char *s, struct sockaddr_storage *ret, socklen_t *ret_len)
{
	struct sockaddr_storage ss = { 0 };
	char host[64];
	const char *port;
	size_t hl;
	char *end;
	long p;

	if (!s || !*s)
		return -EINVAL;
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return -EINVAL;
		hl = (size_t)(close - s - 1);
		if (hl == 0 || hl >= sizeof(host))
			return -EINVAL;
		memcpy(host, s + 1, hl);
		host[hl] = '\0';
		port = close + 2;
	} else if (strchr(s, ':')) {
		const char *colon = strrchr(s, ':');

		hl = (size_t)(colon - s);
		if (hl == 0 || hl >= sizeof(host) || memchr(s, ':', hl))
			return -EINVAL; /* an IPv6 address needs its brackets */
		memcpy(host, s, hl);
		host[hl] = '\0';
		port = colon + 1;
	} else {
		strcpy(host, "127.0.0.1");
		port = s;
	}
	errno = 0;
	p = strtol(port, &end, 10);
	if (errno || end == port || *end || p < 1 || p > 65535)
		return -EINVAL;
	if (s[0] == '[') {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;

		if (inet_pton(AF_INET6, host, &a6->sin6_addr) != 1)
			return -EINVAL;
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)p);
		*ret_len = sizeof(*a6);
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;

		if (inet_pton(AF_INET, host, &a4->sin_addr) != 1)
			return -EINVAL;
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)p);
		*ret_len = sizeof(*a4);
	}
	*ret = ss;
	return 0;
}

static void free_buf(void *p)
{
	free(p);
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned status, const char *text,
				  const char *allow)
{
	struct MHD_Response *resp;
	enum MHD_Result r;

	resp = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "Content-Type", "text/plain; charset=utf-8");
	if (allow)
		MHD_add_response_header(resp, "Allow", allow);
	r = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return r;
}

static struct mh_conn *conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* An answer in the headers' callback: MHD closes the connection after it. */
static enum MHD_Result refuse(struct mh_conn *mc, struct MHD_Connection *conn, unsigned status,
			      const char *text, const char *allow)
{
	if (mc && mc->state != MH_ANSWER) {
		mc->state = MH_ANSWER;
		mc->start_ns = clock_mono_ns();
	}
	return reply_text(conn, status, text, allow);
}

/*
 * The reply for this sample in this format: rendered by the first scrape
 * after a sample, the same MHD response (reference-counted) queued for every
 * later one, so a flood of scrapes costs no rendering.
 */
static struct MHD_Response *body_for(struct daemon *d, struct metrics_http *mh, enum om_format f)
{
	struct mh_cached *c = &mh->cache[(unsigned)f < MH_FORMATS ? f : 0];
	struct strbuf sb = { 0 };
	struct om_opts o = { .format = f,
			     .device_exclude = d->args.metrics_exclude_re,
			     .trace = sampler_trace_raw(d->sampler),
			     .trace_m = sampler_trace_metrics(d->sampler) };
	struct MHD_Response *resp;

	if (c->resp && c->sample == d->samples)
		return c->resp;
	if (om_render(&sb, sampler_current(d->sampler), sampler_metrics(d->sampler),
		      sampler_advice(d->sampler), &o) < 0) {
		sb_free(&sb);
		return NULL;
	}
	resp = MHD_create_response_from_buffer_with_free_callback(sb.len, sb.buf, free_buf);
	if (!resp) {
		sb_free(&sb);
		return NULL;
	}
	MHD_add_response_header(resp, "Content-Type", om_content_type(f));
	/* connections still sending the old one hold their own reference */
	if (c->resp)
		MHD_destroy_response(c->resp);
	c->resp = resp;
	c->sample = d->samples;
	mh->renders++;
	return resp;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct daemon *d = cls;
	struct metrics_http *mh = d->metrics;
	struct mh_conn *mc = conn_of(conn);
	const union MHD_ConnectionInfo *ci;
	struct MHD_Response *resp;
	const char *cl;
	bool head = strcmp(method, "HEAD") == 0;

	if (!*con_cls) {
		mh->window_work++;
		/*
		 * The headers are in. A refusal is queued now: MHD then
		 * closes the connection rather than read a body. A request
		 * to serve waits for the next call, the end of the (empty)
		 * body, as MHD keeps the connection alive only then.
		 */
		*con_cls = mh;
		ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
		if (ci && ci->header_size > METRICS_HEADER_MAX_BYTES)
			return refuse(mc, conn, MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE,
				      "request headers too large\n", NULL);
		if (strcmp(method, "GET") != 0 && !head)
			return refuse(mc, conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				      "iotriaged serves GET /metrics only\n", "GET, HEAD");
		cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						 MHD_HTTP_HEADER_CONTENT_LENGTH);
		if ((cl && strspn(cl, "0") != strlen(cl)) ||
		    MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						MHD_HTTP_HEADER_TRANSFER_ENCODING))
			return refuse(mc, conn, MHD_HTTP_BAD_REQUEST,
				      "a request body is not expected\n", NULL);
		return MHD_YES;
	}
	if (*upload_size) {
		/* a body MHD reads after a refusal was queued: dropped */
		*upload_size = 0;
		return MHD_YES;
	}
	/* answered from here on: held to the reply's deadline */
	if (mc) {
		mc->state = MH_ANSWER;
		mc->start_ns = clock_mono_ns();
	}
	if (strcmp(url, "/metrics") != 0)
		return reply_text(conn, MHD_HTTP_NOT_FOUND,
				  strcmp(url, "/") == 0
				      ? "iotriaged: the exposition is at /metrics\n"
				      : "not found: try /metrics\n",
				  NULL);
	if (!sampler_current(d->sampler))
		return reply_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "no sample yet\n", NULL);
	resp = body_for(d, mh,
			om_negotiate(MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
								 MHD_HTTP_HEADER_ACCEPT)));
	if (!resp)
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n", NULL);
	mh->scrapes++;
	(void)version, (void)upload;
	return MHD_queue_response(conn, MHD_HTTP_OK, resp);
}

/* A reply sent (or the connection gone): a kept-alive connection's next
 * request starts now. */
static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct mh_conn *mc = conn_of(conn);

	if (mc) {
		mc->state = MH_IDLE;
		mc->start_ns = clock_mono_ns();
	}
	*con_cls = NULL;
	(void)cls, (void)toe;
}

/* A request line parsed: on a kept-alive connection, the next request has
 * begun, and its headers have METRICS_REQUEST_S from now. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct mh_conn *mc = conn_of(conn);

	if (mc && mc->state == MH_IDLE) {
		mc->state = MH_HEADERS;
		mc->start_ns = clock_mono_ns();
	}
	(void)cls, (void)uri;
	return NULL; /* on_request's *con_cls: NULL on its first call */
}

static void shed(struct metrics_http *mh, struct mh_conn *mc)
{
	mc->shed = true;
	/* not close(): MHD owns the fd; it reads EOF and closes it */
	shutdown(mc->fd, SHUT_RDWR);
	(void)mh;
}

/*
 * Past the cap, the connection whose unfinished request started longest ago
 * goes (a trickling request, or a kept-alive one idle longest); one being
 * answered only when every other is too (clients not reading their replies);
 * never the newcomer. A scrape's headers arrive in one packet and are
 * answered in the same run, so sixteen slow clients cannot keep it out.
 */
static bool worse(const struct mh_conn *a, const struct mh_conn *b)
{
	if ((a->state == MH_ANSWER) != (b->state == MH_ANSWER))
		return b->state == MH_ANSWER;
	return a->start_ns <= b->start_ns;
}

static void shed_oldest(struct metrics_http *mh, const struct mh_conn *newcomer)
{
	struct mh_conn *old = NULL;
	unsigned live = 0;

	for (struct mh_conn *mc = mh->conns; mc; mc = mc->next) {
		if (mc->shed)
			continue;
		live++;
		if (mc != newcomer && (!old || worse(mc, old)))
			old = mc;
	}
	if (live > METRICS_MAX_CONNECTIONS && old) {
		shed(mh, old);
		mh->shed++;
	}
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct daemon *d = cls;
	struct metrics_http *mh = d->metrics;
	struct mh_conn *mc = *socket_context;
	const union MHD_ConnectionInfo *ci;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		mc = calloc(1, sizeof(*mc));
		if (!mc || !ci) {
			/* no bookkeeping, no service: MHD closes it at once */
			free(mc);
			if (ci)
				shutdown(ci->connect_fd, SHUT_RDWR);
			return;
		}
		mh->window_work++;
		mc->fd = ci->connect_fd;
		mc->state = MH_HEADERS;
		mc->start_ns = clock_mono_ns();
		mc->next = mh->conns;
		if (mh->conns)
			mh->conns->prev = mc;
		mh->conns = mc;
		mh->nconns++;
		*socket_context = mc;
		shed_oldest(mh, mc);
	} else if (toe == MHD_CONNECTION_NOTIFY_CLOSED && mc) {
		if (mc->prev)
			mc->prev->next = mc->next;
		else
			mh->conns = mc->next;
		if (mc->next)
			mc->next->prev = mc->prev;
		mh->nconns--;
		free(mc);
		*socket_context = NULL;
	}
}

/* When a connection is out of time in its state. */
static int64_t deadline_of(const struct mh_conn *mc)
{
	static const int64_t s[] = {
		[MH_HEADERS] = METRICS_REQUEST_S,
		[MH_ANSWER] = METRICS_REPLY_S,
		[MH_IDLE] = METRICS_KEEPALIVE_S,
	};

	return mc->start_ns + s[mc->state] * 1000000000LL;
}

/* Sheds the late; the earliest deadline still ahead, or INT64_MAX. */
static int64_t enforce_deadlines(struct metrics_http *mh, int64_t now)
{
	int64_t next = INT64_MAX;

	for (struct mh_conn *mc = mh->conns; mc; mc = mc->next) {
		int64_t dl;

		if (mc->shed)
			continue;
		dl = deadline_of(mc);
		if (dl <= now) {
			shed(mh, mc);
			mh->late++;
		} else if (dl < next) {
			next = dl;
		}
	}
	return next;
}

static void __attribute__((format(printf, 2, 0))) mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[256];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	daemon_log(LOG_DEBUG, "metrics: %s", msg);
	(void)cls;
}

int metrics_http_start(struct daemon *d)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct metrics_http *mh;
	const union MHD_DaemonInfo *info;
	struct epoll_event ev = { .events = EPOLLIN };
	int one = 1, r;
	char where[80];

	if (!d->args.metrics_listen)
		return 0;
	r = metrics_http_parse_addr(d->args.metrics_listen, &ss, &sl);
	if (r < 0) {
		daemon_log(LOG_ERR, "--metrics-listen %s: not PORT, ADDR:PORT or [ADDR6]:PORT",
			   d->args.metrics_listen);
		return r;
	}
	mh = calloc(1, sizeof(*mh));
	if (!mh)
		return -ENOMEM;
	mh->w.kind = WATCH_METRICS;
	mh->listen_fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (mh->listen_fd < 0) {
		r = -errno;
		goto fail_log;
	}
	setsockopt(mh->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(mh->listen_fd, (struct sockaddr *)&ss, sl) < 0 ||
	    listen(mh->listen_fd, METRICS_BACKLOG) < 0) {
		r = -errno;
		goto fail_log;
	}
	/* the callbacks find it there; MHD calls none before its first run */
	d->metrics = mh;
	mh->mhd = MHD_start_daemon(
	    MHD_USE_EPOLL | MHD_USE_ERROR_LOG | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0), 0,
	    NULL, NULL, on_request, d, MHD_OPTION_LISTEN_SOCKET, mh->listen_fd,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)METRICS_MHD_CONNECTIONS,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)METRICS_MAX_PER_IP,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_KEEPALIVE_S,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)METRICS_REQUEST_MEM_BYTES,
	    MHD_OPTION_NOTIFY_CONNECTION, on_connection, d, MHD_OPTION_NOTIFY_COMPLETED,
	    on_completed, d, MHD_OPTION_URI_LOG_CALLBACK, on_uri, d, MHD_OPTION_EXTERNAL_LOGGER,
	    mhd_log, NULL, MHD_OPTION_END);
	if (!mh->mhd) {
		r = -EIO;
		daemon_log(LOG_ERR, "--metrics-listen %s: libmicrohttpd did not start",
			   d->args.metrics_listen);
		goto fail;
	}
	info = MHD_get_daemon_info(mh->mhd, MHD_DAEMON_INFO_EPOLL_FD);
	if (!info) {
		r = -EIO;
		daemon_log(LOG_ERR, "--metrics-listen: libmicrohttpd has no epoll fd");
		goto fail;
	}
	mh->w.fd = info->epoll_fd;
	ev.data.ptr = &mh->w;
	if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, mh->w.fd, &ev) < 0) {
		r = -errno;
		goto fail_log;
	}
	snprintf(where, sizeof(where), "%s", d->args.metrics_listen);
	daemon_log(LOG_INFO, "metrics: serving http://%s%s/metrics",
		   strchr(where, ':') ? "" : "127.0.0.1:", where);
	return 0;
fail_log:
	daemon_log(LOG_ERR, "--metrics-listen %s: %s", d->args.metrics_listen, strerror(-r));
fail:
	if (mh->mhd)
		MHD_stop_daemon(mh->mhd);
	if (mh->listen_fd >= 0)
		close(mh->listen_fd);
	free(mh);
	d->metrics = NULL;
	return r;
}

/* MHD's fd in the loop's epoll (level-triggered) or out of it. */
static void set_paused(struct daemon *d, struct metrics_http *mh, bool paused)
{
	struct epoll_event ev = { .events = paused ? 0 : EPOLLIN, .data.ptr = &mh->w };

	if (mh->paused == paused)
		return;
	epoll_ctl(d->epfd, EPOLL_CTL_MOD, mh->w.fd, &ev);
	mh->paused = paused;
	if (paused)
		mh->throttled++;
}

/* A new window when the last one ended: serving resumes. */
static void window_roll(struct daemon *d, struct metrics_http *mh, int64_t now)
{
	if (now - mh->window_ns < METRICS_WINDOW_MS * 1000000LL)
		return;
	mh->window_ns = now;
	mh->window_work = 0;
	mh->window_runs = 0;
	set_paused(d, mh, false);
}

static void run(struct daemon *d, struct metrics_http *mh)
{
	int64_t now = clock_mono_ns();

	window_roll(d, mh, now);
	if (mh->paused)
		return;
	MHD_run(mh->mhd);
	mh->window_runs++;
	if (mh->window_work >= METRICS_WINDOW_WORK || mh->window_runs >= METRICS_WINDOW_RUNS)
		set_paused(d, mh, true);
	enforce_deadlines(mh, clock_mono_ns());
}

void metrics_http_run(struct daemon *d)
{
	if (d->metrics)
		run(d, d->metrics);
}

int metrics_http_timeout(struct daemon *d, int timeout_ms)
{
	struct metrics_http *mh = d->metrics;
	MHD_UNSIGNED_LONG_LONG mt;
	int64_t now, next;

	if (!mh)
		return timeout_ms;
	now = clock_mono_ns();
	next = enforce_deadlines(mh, now);
	if (mh->paused && mh->window_ns + METRICS_WINDOW_MS * 1000000LL < next)
		next = mh->window_ns + METRICS_WINDOW_MS * 1000000LL;
	if (next != INT64_MAX) {
		/* +1: never wake just before the deadline and sleep again */
		int64_t ms = next > now ? (next - now) / 1000000 + 1 : 0;

		if (timeout_ms < 0 || ms < timeout_ms)
			timeout_ms = (int)ms;
	}
	if (!mh->paused && MHD_get_timeout(mh->mhd, &mt) == MHD_YES &&
	    (timeout_ms < 0 || mt < (unsigned)timeout_ms))
		/* at most its idle timeout; bounded so the int cannot wrap */
		timeout_ms =
		    (int)(mt < METRICS_KEEPALIVE_S * 1000 ? mt : METRICS_KEEPALIVE_S * 1000);
	return timeout_ms;
}

void metrics_http_due(struct daemon *d)
{
	struct metrics_http *mh = d->metrics;
	MHD_UNSIGNED_LONG_LONG mt;

	if (!mh)
		return;
	window_roll(d, mh, clock_mono_ns());
	/* data MHD has read but not yet parsed, a reply half sent, a timeout:
	 * with edge-triggered epoll inside MHD nothing else would wake us */
	if (!mh->paused && MHD_get_timeout(mh->mhd, &mt) == MHD_YES && mt == 0)
		run(d, mh);
	else
		enforce_deadlines(mh, clock_mono_ns());
}

void metrics_http_status(const struct daemon *d, struct strbuf *sb)
{
	const struct metrics_http *mh = d->metrics;

	if (!mh) {
		sb_puts(sb, ",\"http\":null");
		return;
	}
	sb_printf(sb,
		  ",\"http\":{\"connections\":%u,\"max_connections\":%d,\"scrapes\":%llu,"
		  "\"renders\":%llu,\"shed\":%llu,\"late\":%llu,\"throttled\":%llu}",
		  mh->nconns, METRICS_MAX_CONNECTIONS, (unsigned long long)mh->scrapes,
		  (unsigned long long)mh->renders, (unsigned long long)mh->shed,
		  (unsigned long long)mh->late, (unsigned long long)mh->throttled);
}

void metrics_http_stop(struct daemon *d)
{
	struct metrics_http *mh = d->metrics;

	if (!mh)
		return;
	MHD_stop_daemon(mh->mhd);
	for (unsigned f = 0; f < MH_FORMATS; f++)
		if (mh->cache[f].resp)
			MHD_destroy_response(mh->cache[f].resp);
	/* MHD leaves a socket given by MHD_OPTION_LISTEN_SOCKET open */
	close(mh->listen_fd);
	free(mh);
	d->metrics = NULL;
}
