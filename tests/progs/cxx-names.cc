// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cxx-names: main calls a method, a function template and a function whose
 * symbol is a Rust (v0) mangled name, once each, in that order.
 */
#define NOINLINE __attribute__((noinline))

namespace shapes {
struct Circle {
	int r;
	NOINLINE int area() const;
};

int Circle::area() const
{
	asm volatile("");
	return 3 * r * r;
}

template <typename T> NOINLINE T twice(T x)
{
	asm volatile("");
	return x + x;
}
} // namespace shapes

/* The symbol rustc gives mycrate::foo. */
extern "C" NOINLINE int rust_foo(int x) asm("_RNvCs1234_7mycrate3foo");
extern "C" int rust_foo(int x)
{
	asm volatile("");
	return x - 1;
}

int main(int argc, char **argv)
{
	shapes::Circle c = { argc };

	(void)argv;
	return (c.area() + (int)shapes::twice<long>(argc) + rust_foo(argc)) & 0x7f;
}
