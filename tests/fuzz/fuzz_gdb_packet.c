// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target of the gdb stub's protocol half: any byte stream goes
 * through the framer ($...#xx, acks, Ctrl-C, escapes), every packet it
 * yields through the parser and the server's dispatch (with no program:
 * every request that needs one must fail cleanly), and every reply
 * through the framer's encoder.
 *
 * With BTS_FUZZ_WRITE_SEEDS=DIR in the environment the target writes a
 * seed corpus into DIR (what gdb 13 sends, framed) and exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsp.h"
#include "server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rsp_framer f;
	struct gdb_server sv;
	struct strbuf reply, frame;
	size_t i;

	rsp_framer_init(&f);
	gdb_server_init(&sv, NULL);
	sb_init(&reply);
	sb_init(&frame);
	for (i = 0; i < size; i++) {
		if (rsp_feed(&f, data[i]) != RSP_PACKET)
			continue;
		if (f.len > RSP_PACKET_MAX)
			abort();
		gdb_handle(&sv, f.buf, f.len, &reply);
		sb_reset(&frame);
		rsp_frame(&frame, reply.s ? reply.s : "", reply.len);
		if (!frame.oom && (frame.len < 4 || frame.s[0] != '$'))
			abort();
	}
	sb_free(&reply);
	sb_free(&frame);
	gdb_server_free(&sv);
	return 0;
}

static const char *const seeds[] = {
	"qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;fork-events+;"
	"vfork-events+;exec-events+;vContSupported+;QThreadEvents+;"
	"no-resumed+;memory-tagging+;xmlRegisters=i386",
	"vMustReplyEmpty", "QStartNoAckMode", "Hg0", "Hc-1", "Hg1a2b", "qTStatus",
	"?", "qfThreadInfo", "qsThreadInfo", "qAttached", "qC", "qOffsets",
	"g", "G0011223344", "p10", "P10=0011223344556677", "m401000,40",
	"M401000,2:cc90", "X401000,2:ab", "Z0,401000,1", "z0,401000,1",
	"Z1,401000,1", "vCont?", "vCont;c", "vCont;s:1a2b;c", "vCont;C0b:-1",
	"c", "s", "C05", "T1a2b", "qSymbol::", "vKill;a410", "k", "D", "D;1",
	"qXfer:btrace-conf:read::0,1000", "qXfer:btrace:read:all:0,1000",
	"qXfer:btrace:read:delta:0,1000", "qXfer:btrace:read:new:1000,1000",
	"qXfer:auxv:read::0,1000", "qXfer:exec-file:read:2a:0,fff",
	"qXfer:features:read:target.xml:0,fff",
	"Qbtrace-conf:bts:size=0x10000", "Qbtrace-conf:pt:size=0x4000",
	"Qbtrace:bts", "Qbtrace:off", "Qbtrace:pt", "Qbtrace:xyz",
};

static void write_seed(const char *dir, size_t i, const char *stream)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/seed-%zu", dir, i);
	fp = fopen(path, "w");
	if (!fp || fputs(stream, fp) < 0 || fclose(fp)) {
		fprintf(stderr, "fuzz_gdb_packet: cannot write %s\n", path);
		exit(1);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("BTS_FUZZ_WRITE_SEEDS");
	struct strbuf all, one;
	size_t i;

	(void)argc;
	(void)argv;
	if (!dir)
		return 0;
	sb_init(&all);
	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		sb_init(&one);
		rsp_frame(&one, seeds[i], strlen(seeds[i]));
		sb_puts(&one, "+");
		write_seed(dir, i, one.s);
		sb_add(&all, one.s, one.len);
		sb_free(&one);
	}
	/* The whole conversation, a Ctrl-C and a bad checksum in it. */
	sb_puts(&all, "\003$g#00-");
	write_seed(dir, i, all.s);
	sb_free(&all);
	exit(0);
}
