// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of libwsched's software checksums (no device needed): known
 * answers for CRC-32C, XXH64 (values of the kernel's lib/xxhash.c) and
 * SHA-256 (values of hashlib), on standard strings and on a pseudo-random
 * pattern.  TAP output; exit 1 on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wsched.h"

#define PAT_LEN (1U << 20)

static unsigned char pat[PAT_LEN];
static int failed, ntest;

static void ok(int cond, const char *fmt, const char *what, unsigned long long n)
{
	ntest++;
	if (!cond)
		failed++;
	printf("%sok %d ", cond ? "" : "not ", ntest);
	printf(fmt, what, n);
	putchar('\n');
}

/* Bit-at-a-time reference, independent of the table code. */
static __u32 crc32c_bitwise(__u32 c, const unsigned char *p, size_t len)
{
	int k;

	while (len--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82F63B78U & -(c & 1));
	}
	return c;
}

static void hex(const __u8 *d, char *out)
{
	int i;

	for (i = 0; i < 32; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

int main(void)
{
	static const struct { size_t len; __u64 seed0, seed1; } xx[] = {
		{ 0, 0xef46db3751d8e999ULL, 0x51e24c0e9077a48cULL },
		{ 1, 0xa8b77899b16d622dULL, 0xa7503bce54c0b5b8ULL },
		{ 3, 0x6fe9243068a4af97ULL, 0x21f9c10d673a8145ULL },
		{ 4, 0x64d032f505ca3d2cULL, 0x6169af39dc13f762ULL },
		{ 7, 0xb2dabaca31b70eaaULL, 0xbfdcaad407702f94ULL },
		{ 8, 0x5d6680cf1e88edbfULL, 0x68f8fe3da8416951ULL },
		{ 31, 0xd7dd0622b1ddd03aULL, 0x1d5bf97e9bde28b1ULL },
		{ 32, 0xcf01c3b2a77d9c5eULL, 0xddcbad1d6e4fc734ULL },
		{ 33, 0x810c1d48fa3f91d4ULL, 0x1fbf6595d7bc6491ULL },
		{ 63, 0x73c2d162ca29b60eULL, 0x14433184695954caULL },
		{ 64, 0xf93a37dd952b1111ULL, 0xec141a0f1134fbe2ULL },
		{ 100, 0x69a34abfd179a55eULL, 0x1ae0435bf9130fcfULL },
		{ 1000, 0x2a86f8f37d6c0ad8ULL, 0xe043f7facc42ad5eULL },
		{ PAT_LEN, 0x0f06897819c0476aULL, 0x3dfa366c49bb5149ULL },
	};
	static const struct { size_t len; const char *hex; } sha[] = {
		{ 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ 1, "fb95aa98d6e6c5827a57ec17b978d647fcc01d98c357b7e64989af57339e9ac3" },
		{ 55, "71c8932528a322d44286f7aef656a86d4f8eca7e363ff070ff6c8ebf01c23376" },
		{ 56, "240d21dde936d864014a3d633ec2b5fc11c3a05ab2b9a7ed762a9ce41b8153f2" },
		{ 63, "57ec17463000ce178ab0e109e0b804bee3fd5c06b8602aa3becf9e0290eb6452" },
		{ 64, "f884997e48d50999298babb11bcd1b697ee18066da5a6df2b5fa7d9dcb3ff205" },
		{ 65, "18a6fbe59a0ad33c45efff233c9973f96d3c6cc97839bf6c30b437b6e1f51968" },
		{ 119, "3600f855c81283c0efdbb7be068c00fdca5c9104ce19d982464d51eb0ab14d2b" },
		{ 120, "c88f374fa008e549134852fe3881564e16cdbf776e12667115371d50f0c3fed5" },
		{ 1000, "a7f1195b5dd581399ef111007e6b3c49a3542cefeb4fdd1d5338eb6dff8d7e9e" },
		{ PAT_LEN, "0c44766520536c6789f1dda2cc2a58dbde70e889119c918e034d2ec0d66e4453" },
	};
	__u8 d[32];
	char h[65];
	unsigned int x = 12345, i, off;
	size_t k;

	for (i = 0; i < PAT_LEN; i++) {
		x = x * 1103515245U + 12345U;
		pat[i] = (unsigned char)(x >> 16);
	}

	/* CRC-32C check value, and the raw convention. */
	ok(~wsched_crc32c_sw(~0U, "123456789", 9) == 0xE3069283U,
	   "crc32c %s standard check value 0xE3069283%.0llu", "\"123456789\"", 0);
	ok(wsched_crc32c_sw(~0U, "123456789", 9) == 0x1CF96D7CU,
	   "crc32c %s raw value 0x1CF96D7C (seed ~0)%.0llu", "\"123456789\"", 0);
	ok(wsched_crc32c_sw(0x1234, "", 0) == 0x1234,
	   "crc32c %s returns the seed%.0llu", "empty input", 0);
	/* Table code against bit-at-a-time, at every alignment and length. */
	for (off = 0; off < 8; off++) {
		int good = 1;

		for (k = 0; k < 300; k++)
			good &= wsched_crc32c_sw(~0U, pat + off, k) ==
				crc32c_bitwise(~0U, pat + off, k);
		ok(good, "crc32c %s, offset %llu, lengths 0..299", "matches bitwise", off);
	}
	ok(wsched_crc32c_sw(0, pat, PAT_LEN) == crc32c_bitwise(0, pat, PAT_LEN),
	   "crc32c %s on %llu bytes", "matches bitwise", PAT_LEN);
	/* Chaining: crc(crc(s, a), b) == crc(s, a b). */
	ok(wsched_crc32c_sw(wsched_crc32c_sw(~0U, pat, 12345), pat + 12345,
			    PAT_LEN - 12345) == wsched_crc32c_sw(~0U, pat, PAT_LEN),
	   "crc32c %s%.0llu", "chains through the seed", 0);

	ok(wsched_xxhash64_sw("abc", 3, 0) == 0x44bc2cf5ad770999ULL,
	   "xxhash64 %s%.0llu", "\"abc\"", 0);
	for (i = 0; i < sizeof(xx) / sizeof(xx[0]); i++) {
		ok(wsched_xxhash64_sw(pat, xx[i].len, 0) == xx[i].seed0,
		   "xxhash64 %s, length %llu, seed 0", "pattern", xx[i].len);
		ok(wsched_xxhash64_sw(pat, xx[i].len, 0x123456789abcdefULL) == xx[i].seed1,
		   "xxhash64 %s, length %llu, seed 0x123456789abcdef", "pattern", xx[i].len);
	}

	wsched_sha256_sw("abc", 3, d);
	hex(d, h);
	ok(!strcmp(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
	   "sha256 %s%.0llu", "\"abc\"", 0);
	for (i = 0; i < sizeof(sha) / sizeof(sha[0]); i++) {
		wsched_sha256_sw(pat, sha[i].len, d);
		hex(d, h);
		ok(!strcmp(h, sha[i].hex), "sha256 %s, length %llu", "pattern", sha[i].len);
	}

	printf("1..%d\n", ntest);
	return failed ? 1 : 0;
}
