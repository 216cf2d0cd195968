/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dropping what iotriaged does not need once it is set up. No logging here:
 * main.c says what was kept.
 */
#ifndef IOTRIAGED_CAPS_H
#define IOTRIAGED_CAPS_H

#include <stddef.h>

/*
 * Keeps, of the capabilities this thread has, only those the running daemon
 * still uses (see caps.c), in the effective, permitted and bounding sets;
 * clears the inheritable and ambient sets and sets no_new_privs. Call before
 * any thread is started: capabilities are per thread, and new threads
 * inherit the caller's. Writes the kept names, comma-separated ("none" if
 * there are none), to ret_kept (size bytes). 0 or -errno; on failure the
 * sets may be partly reduced, never widened.
 */
int caps_drop(char *ret_kept, size_t size);

#endif
