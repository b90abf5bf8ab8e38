// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Google Test half of the harness: every C test registered with TEST()
 * becomes a gtest test, and the run ends with "N passed, N failed".
 */
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <gtest/gtest.h>

extern "C" {
#include "harness.h"
extern struct harness_test *harness_tests;
}

/* printf into a malloc'ed string, or NULL (the caller then shows @fmt). */
static char *format(const char *fmt, va_list ap)
{
	char *msg = nullptr;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = nullptr;
	return msg;
}

extern "C" void harness_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	char *msg = format(fmt, ap);
	va_end(ap);
	ADD_FAILURE_AT(file, line) << (msg ? msg : fmt);
	free(msg);
}

extern "C" void harness_skip(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	char *msg = format(fmt, ap);
	va_end(ap);
	GTEST_MESSAGE_AT_(file, line, msg ? msg : fmt,
			  testing::TestPartResult::kSkip);
	free(msg);
	harness_abort();
}

namespace {

class CTest : public testing::Test {
public:
	explicit CTest(const harness_test *t) : t_(t) {}
	void TestBody() override { harness_call(t_); }
private:
	const harness_test *t_;
};

class Tally : public testing::EmptyTestEventListener {
public:
	void OnTestEnd(const testing::TestInfo &info) override
	{
		if (info.result()->Failed())
			failed++;
		else if (info.result()->Skipped())
			skipped++;
		else
			passed++;
	}
	int passed = 0, failed = 0, skipped = 0;
};

} // namespace

int main(int argc, char **argv)
{
	testing::InitGoogleTest(&argc, argv);
	/*
	 * The qemu-user source's plugin of this build, for libbts in this
	 * process as for the btrace it runs (which finds it beside itself).
	 */
	setenv("BTS_QEMU_PLUGIN", BTS_BUILD_DIR "/ptbts-qemu-user.so", 1);

	/* Registration order is reverse file order: restore it. */
	std::vector<harness_test *> tests;
	for (harness_test *t = harness_tests; t; t = t->next)
		tests.insert(tests.begin(), t);
	for (harness_test *t : tests)
		testing::RegisterTest(t->suite, t->name, nullptr, nullptr,
				      t->file, t->line,
				      [t]() -> testing::Test * { return new CTest(t); });

	Tally *tally = new Tally;
	testing::UnitTest::GetInstance()->listeners().Append(tally);
	int rc = RUN_ALL_TESTS();
	if (tally->skipped)
		printf("%d skipped (the reasons: the [  SKIPPED ] lines above)\n",
		       tally->skipped);
	printf("%d passed, %d failed\n", tally->passed, tally->failed);
	return rc;
}
