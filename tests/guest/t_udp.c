// SPDX-License-Identifier: GPL-2.0
/*
 * udp — network receive softirq charged under the sending system call.
 *
 * Brings loopback up, sends 200 UDP datagrams from one socket to another on
 * 127.0.0.1 with sendto() (each received right after with recv()).  On
 * loopback the datagram is queued to the backlog and NET_RX runs when the
 * sender re-enables bottom halves, inside sendto(): the sender's own profile
 * must have the edge sendto => NET_RX with calls >= 1.  What was seen
 * (edges into NET_RX, top-level NET_RX) is reported either way.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NDGRAM 200

static char pbuf[1 << 20];

static int lo_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	if (s < 0) {
		ktr_fail("lo-up", "socket(AF_INET, SOCK_DGRAM): %s", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr)) {
		ktr_fail("lo-up", "SIOCGIFFLAGS lo: %s", strerror(errno));
		close(s);
		return -1;
	}
	if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(s, SIOCSIFFLAGS, &ifr)) {
			ktr_fail("lo-up", "SIOCSIFFLAGS lo IFF_UP: %s", strerror(errno));
			close(s);
			return -1;
		}
	}
	close(s);
	ktr_pass("lo-up");
	return 0;
}

static void report(const struct ktr_block *b, const char *when)
{
	char line[900];
	size_t n = 0;
	uint64_t c, in;

	ktr_func(b, "NET_RX", &c, &in, NULL);
	n += (size_t)snprintf(line + n, sizeof(line) - n, "NET_RX calls %" PRIu64 " incl %" PRIu64
			      " (no caller %" PRIu64 "); edges:", c, in, ktr_toplevel(b, "NET_RX"));
	for (size_t k = 0; b && k < b->npaths && n < sizeof(line) - 80; k++)
		if (!strcmp(b->paths[k].name, "NET_RX") && b->paths[k].depth > 1)
			n += (size_t)snprintf(line + n, sizeof(line) - n, " %s=>NET_RX %" PRIu64,
					      b->paths[k].parent, b->paths[k].calls);
	ktr_info(when, "%s", line);
}

int main(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET }, rcv;
	socklen_t alen = sizeof(rcv);
	struct ktr_profile p0, p1;
	struct ktr_block *b0, *b1;
	struct timeval tv = { 2, 0 };
	uint64_t e0, e1, s0, s1, n0, n1;
	char path[64];
	int tx, rx, bad = 0, got = 0, lasterr = 0;

	ktr_init("udp");
	memset(pbuf, ' ', sizeof(pbuf));	/* pre-fault */
	snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", (long)syscall(SYS_gettid));
	if (lo_up())
		return ktr_exit();
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	if (tx < 0 || rx < 0 || bind(rx, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(rx, (struct sockaddr *)&rcv, &alen) ||
	    setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		ktr_fail("sockets", "UDP socket setup on 127.0.0.1: %s", strerror(errno));
		return ktr_exit();
	}
	if (ktr_load_buf(path, pbuf, sizeof(pbuf), &p0, "baseline"))
		return ktr_exit();
	for (int i = 0; i < NDGRAM; i++) {
		char msg[32], in[64];
		ssize_t n;
		int len = snprintf(msg, sizeof(msg), "ktau-udp %d", i);

		if (sendto(tx, msg, (size_t)len, 0, (struct sockaddr *)&rcv, sizeof(rcv)) != len) {
			bad++;
			lasterr = errno;
			continue;
		}
		n = recv(rx, in, sizeof(in), 0);
		if (n == len && !memcmp(in, msg, (size_t)len))
			got++;
		else {
			bad++;
			lasterr = n < 0 ? errno : 0;
		}
	}
	if (ktr_load_buf(path, pbuf, sizeof(pbuf), &p1, "after"))
		return ktr_exit();
	ktr_check(got == NDGRAM && !bad, "datagrams",
		  "%d of %d datagrams sent and received intact (%d failures; last error %s)",
		  got, NDGRAM, bad, lasterr ? strerror(lasterr) : "none");
	b0 = ktr_block_kind(&p0, "thread", 0);
	b1 = ktr_block_kind(&p1, "thread", 0);
	if (!b0 || !b1) {
		ktr_fail("thread-block", "%s has no kind=thread block", path);
		return ktr_exit();
	}
	report(b1, "seen");
	ktr_func(b0, "sendto", &s0, NULL, NULL);
	ktr_func(b1, "sendto", &s1, NULL, NULL);
	ktr_check(s1 - s0 == NDGRAM, "sendto-calls", "sendto calls grew by %" PRIu64
		  ", expected exactly %d", s1 - s0, NDGRAM);
	ktr_func(b0, "NET_RX", &n0, NULL, NULL);
	ktr_func(b1, "NET_RX", &n1, NULL, NULL);
	ktr_check(n1 > n0, "NET_RX-charged",
		  "NET_RX calls in the sender's profile grew by %" PRIu64 ", expected >= 1 "
		  "(softirqs run in its context are charged to it)", n1 - n0);
	ktr_edge(b0, "sendto", "NET_RX", &e0, NULL, NULL);
	ktr_edge(b1, "sendto", "NET_RX", &e1, NULL, NULL);
	ktr_check(e1 > e0, "edge-sendto-NET_RX",
		  "edge sendto => NET_RX grew by %" PRIu64 " calls over %d sendto() on loopback, "
		  "expected >= 1 (see INFO udp/seen for where NET_RX went)", e1 - e0, NDGRAM);
	{
		const char *g = ktr_func_group(b1, "NET_RX");

		ktr_check(g && !strcmp(g, "softirq"), "NET_RX-group",
			  "func NET_RX has group %s, expected softirq", g ? g : "(no func line)");
	}
	ktr_free(&p0);
	ktr_free(&p1);
	close(tx);
	close(rx);
	return ktr_exit();
}
