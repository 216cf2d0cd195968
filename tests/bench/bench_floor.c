// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The floor of any sampler of what iostat and mpstat read: a process that
 * wakes on a timerfd every INTERVAL_MS and pread()s /proc/uptime, stat,
 * diskstats, interrupts and softirqs to their end (fds kept open, a short
 * read is not the end), then sleeps again. It parses nothing and writes
 * nothing, so its CPU per tick is what the kernel charges for the wake-up
 * and for formatting those five files. tests/bench/bench_daemon.sh runs it
 * beside iotriaged, iostat and mpstat and measures it the same way
 * (/proc/PID/schedstat); it prints its tick count on SIGTERM.
 *
 *   bench_floor INTERVAL_MS
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <poll.h>
#include <unistd.h>

static const char *const files[] = { "/proc/uptime", "/proc/stat", "/proc/diskstats",
				     "/proc/interrupts", "/proc/softirqs" };
#define NFILES (sizeof(files) / sizeof(files[0]))

int main(int argc, char **argv)
{
	static char buf[1 << 20]; /* larger than any of the five on a big host */
	struct itimerspec its = { 0 };
	struct pollfd pfd[2];
	unsigned long ticks = 0;
	sigset_t mask;
	int fds[NFILES];
	long ms;

	if (argc != 2 || (ms = strtol(argv[1], NULL, 10)) < 1) {
		fprintf(stderr, "usage: bench_floor INTERVAL_MS\n");
		return 2;
	}
	for (size_t i = 0; i < NFILES; i++) {
		fds[i] = open(files[i], O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0) {
			perror(files[i]);
			return 1;
		}
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	pfd[0].fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	pfd[1].fd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (pfd[0].fd < 0 || pfd[1].fd < 0) {
		perror("timerfd/signalfd");
		return 1;
	}
	pfd[0].events = pfd[1].events = POLLIN;
	its.it_interval.tv_sec = ms / 1000;
	its.it_interval.tv_nsec = (ms % 1000) * 1000000L;
	its.it_value = its.it_interval;
	timerfd_settime(pfd[0].fd, 0, &its, NULL);
	for (;;) {
		uint64_t exp;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("poll");
			return 1;
		}
		if (pfd[1].revents)
			break;
		if (read(pfd[0].fd, &exp, sizeof(exp)) != (ssize_t)sizeof(exp))
			continue;
		for (size_t i = 0; i < NFILES; i++) {
			off_t off = 0;
			ssize_t n;

			while ((n = pread(fds[i], buf + off, sizeof(buf) - (size_t)off, off)) > 0 &&
			       (size_t)off + (size_t)n < sizeof(buf))
				off += n;
		}
		ticks++;
	}
	printf("%lu\n", ticks);
	return 0;
}
