// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --metrics-listen: /metrics for Prometheus, served by libmicrohttpd inside
 * the daemon's one epoll loop (MHD's own epoll fd is one more watch, MHD_run
 * is called when it is readable and on every sample for its timeouts): no
 * thread, so a scrape renders the latest sample the loop holds, with no lock
 * and without reading /proc again. Read-only; bounded connections, request
 * memory and time. doc/prometheus.md.
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

/* Bounds: a scraper or two per host, each with a small GET. */
#define METRICS_MAX_CONNECTIONS	  16
#define METRICS_MAX_PER_IP	  8
#define METRICS_TIMEOUT_S	  10
#define METRICS_REQUEST_MEM_BYTES (16 * 1024) /* headers of one request, MHD's pool */

struct metrics_http {
	struct watch w; /* first: epoll's data.ptr; fd is MHD's epoll fd */
	struct MHD_Daemon *mhd;
	int listen_fd;
	uint64_t scrapes;
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

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct daemon *d = cls;
	struct strbuf sb = { 0 };
	struct om_opts o = { 0 };
	const struct snapshot *cur;
	struct MHD_Response *resp;
	enum MHD_Result r;
	bool head = strcmp(method, "HEAD") == 0;

	if (strcmp(method, "GET") != 0 && !head)
		return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				  "iotriaged serves GET /metrics only\n", "GET, HEAD");
	/* a GET with a body: refused rather than read */
	if (*upload_size)
		return reply_text(conn, MHD_HTTP_BAD_REQUEST, "a request body is not expected\n",
				  NULL);
	if (strcmp(url, "/metrics") != 0)
		return reply_text(conn, MHD_HTTP_NOT_FOUND,
				  strcmp(url, "/") == 0
				      ? "iotriaged: the exposition is at /metrics\n"
				      : "not found: try /metrics\n",
				  NULL);
	cur = sampler_current(d->sampler);
	if (!cur)
		return reply_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "no sample yet\n", NULL);
	o.format = om_negotiate(
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
	o.device_exclude = d->args.metrics_exclude_re;
	if (om_render(&sb, cur, sampler_metrics(d->sampler), sampler_advice(d->sampler), &o) < 0) {
		sb_free(&sb);
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n", NULL);
	}
	resp = MHD_create_response_from_buffer_with_free_callback(sb.len, sb.buf, free_buf);
	if (!resp) {
		sb_free(&sb);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", om_content_type(o.format));
	r = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	((struct metrics_http *)d->metrics)->scrapes++;
	(void)version, (void)upload, (void)con_cls;
	return r;
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
	    listen(mh->listen_fd, METRICS_MAX_CONNECTIONS) < 0) {
		r = -errno;
		goto fail_log;
	}
	mh->mhd = MHD_start_daemon(
	    MHD_USE_EPOLL | MHD_USE_ERROR_LOG | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0), 0,
	    NULL, NULL, on_request, d, MHD_OPTION_LISTEN_SOCKET, mh->listen_fd,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)METRICS_MAX_CONNECTIONS,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)METRICS_MAX_PER_IP,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_TIMEOUT_S,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)METRICS_REQUEST_MEM_BYTES,
	    MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_END);
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
	d->metrics = mh;
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
	return r;
}

void metrics_http_run(struct daemon *d)
{
	struct metrics_http *mh = d->metrics;

	if (mh)
		MHD_run(mh->mhd);
}

uint64_t metrics_http_scrapes(const struct daemon *d)
{
	const struct metrics_http *mh = d->metrics;

	return mh ? mh->scrapes : 0;
}

void metrics_http_stop(struct daemon *d)
{
	struct metrics_http *mh = d->metrics;

	if (!mh)
		return;
	MHD_stop_daemon(mh->mhd);
	/* MHD leaves a socket given by MHD_OPTION_LISTEN_SOCKET open */
	close(mh->listen_fd);
	free(mh);
	d->metrics = NULL;
}
