// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iotriaged's log lines and sd_notify: stderr with "<N>" priorities under
 * journald, syslog once detached, every line through text_safe (a line may
 * quote what a client sent). Nothing else writes to stderr.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include "daemon.h"
#include "text.h"

static bool arg_journal; /* stderr is the journal: "<N>" prefixes */
static bool arg_syslog;	 /* detached: stderr is /dev/null */
static int arg_log_max = LOG_INFO;

void daemon_log(int prio, const char *fmt, ...)
{
	char raw[1024], msg[1024];
	va_list ap;

	if (prio > arg_log_max)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* a line may quote what a client sent (a suggestion id, worker
	 * arguments): no control sequence reaches a terminal or the journal */
	text_safe(raw, msg, sizeof(msg));
	if (arg_syslog)
		syslog(prio, "%s", msg);
	else if (arg_journal)
		fprintf(stderr, "<%d>%s\n", prio, msg); /* the journal adds our name */
	else
		fprintf(stderr, "iotriaged: %s\n", msg);
}

/*
 * systemd sets JOURNAL_STREAM=DEV:INODE of the stream it gave us; it only
 * counts if stderr is still that stream (not redirected by a wrapper).
 */
static bool stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void daemon_log_init(void)
{
	arg_journal = stderr_is_journal();
}

void daemon_log_verbose(void)
{
	arg_log_max = LOG_DEBUG;
}

void daemon_log_to_syslog(void)
{
	arg_syslog = true;
}

/*
 * sd_notify(3) is one datagram to $NOTIFY_SOCKET ('@' = abstract namespace).
 * Done by hand rather than with libsystemd: it is twenty lines, and the
 * daemon then runs unchanged where libsystemd is absent (containers, other
 * init systems).
 */
int daemon_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t plen;
	socklen_t salen;
	ssize_t n;
	int fd, r = 0;

	if (!path || !path[0])
		return 0;
	plen = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || plen >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, plen);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	n = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, salen);
	if (n < 0)
		r = -errno;
	close(fd);
	return r;
}
