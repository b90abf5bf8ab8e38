// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The layout strings of trace_format.h, held to their structs: a field
 * added to a chunk without its layout character would be read unconverted
 * on a big-endian host, which this x86 machine would never show.
 */
#include <string.h>

#include <bts.h>

#include "trace/trace_format.h"
#include "harness.h"

#define WHOLE(type, layout) \
	EXPECT_EQ(bts_chunk_layout_size(layout), sizeof(struct type))

TEST(trace_layout, each_layout_covers_its_struct)
{
	WHOLE(bts_file_header, BTS_LAYOUT_FILE_HEADER);
	WHOLE(bts_chunk_header, BTS_LAYOUT_CHUNK_HEADER);
	WHOLE(bts_chunk_session, BTS_LAYOUT_SESSION);
	WHOLE(bts_chunk_process, BTS_LAYOUT_PROCESS);
	WHOLE(bts_chunk_thread, BTS_LAYOUT_THREAD);
	WHOLE(bts_chunk_start, BTS_LAYOUT_START);
	WHOLE(bts_chunk_map, BTS_LAYOUT_MAP);
	WHOLE(bts_chunk_records, BTS_LAYOUT_RECORDS);
	WHOLE(bts_chunk_exit, BTS_LAYOUT_EXIT);
	WHOLE(bts_chunk_code, BTS_LAYOUT_CODE);
	WHOLE(bts_chunk_exec, BTS_LAYOUT_EXEC);
	WHOLE(bts_chunk_crash, BTS_LAYOUT_CRASH);
	WHOLE(bts_chunk_end, BTS_LAYOUT_END);
	WHOLE(bts_chunk_records_compact, BTS_LAYOUT_RECORDS_COMPACT);
	WHOLE(bts_chunk_records_tnt, BTS_LAYOUT_RECORDS_TNT);
	WHOLE(bts_chunk_pebs, BTS_LAYOUT_PEBS);
	WHOLE(bts_chunk_index, BTS_LAYOUT_INDEX);
	WHOLE(bts_chunk_index_point, BTS_LAYOUT_INDEX_POINT);
	WHOLE(bts_chunk_abi, BTS_LAYOUT_ABI);
	WHOLE(ptbts_record, BTS_LAYOUT_RECORD);
	WHOLE(bts_frame, BTS_LAYOUT_FRAME);
	/* Their arrays (siginfo, registers) are converted by their readers. */
	EXPECT_EQ(bts_chunk_layout_size(BTS_LAYOUT_CRASH_SIGNAL),
		  offsetof(struct bts_chunk_crash_signal, siginfo));
	EXPECT_EQ(bts_chunk_layout_size(BTS_LAYOUT_CRASH_THREAD),
		  offsetof(struct bts_chunk_crash_thread, regs));
}

/* Little-endian bytes in, host values out, whatever the host's order. */
TEST(trace_layout, fields_come_out_in_host_order)
{
	static const uint8_t file[24] = {
		0x01, 0x02, 0x03, 0x04,	/* pid */
		0xfe, 0xff, 0xff, 0xff,	/* prot: any 32 bits */
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,	/* start */
		0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x01,	/* end */
	};
	struct bts_chunk_start s;
	struct bts_chunk_map m;

	memset(&m, 0, sizeof(m));
	bts_chunk_load(&m, file, sizeof(file), "4488");
	EXPECT_EQ(m.pid, 0x04030201);
	EXPECT_EQ(m.prot, 0xfffffffeu);
	EXPECT_EQ(m.start, 0x8877665544332211ull);
	EXPECT_EQ(m.end, 0x0100ffeeddccbbaaull);
	bts_chunk_load(&s, file, sizeof(s), BTS_LAYOUT_START);
	EXPECT_EQ(s.tid, -2);
	EXPECT_EQ(s.pc, 0x8877665544332211ull);
}
