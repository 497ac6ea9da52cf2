// SPDX-License-Identifier: GPL-2.0
/*
 * Software CRC-32C, XXH64 and SHA-256, to check what /dev/wsched computes.
 * Straightforward portable code, not tuned: CRC-32C is slicing-by-8,
 * XXH64 follows the xxHash specification, SHA-256 FIPS 180-4.
 */
#include <pthread.h>
#include <string.h>

#include "wsched.h"

#define WSCHED_EXPORT __attribute__((visibility("default")))

/* CRC-32C ---------------------------------------------------------------- */

#define CRC32C_POLY	0x82F63B78U	/* reflected Castagnoli polynomial */

static __u32 crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	unsigned int i, j;

	for (i = 0; i < 256; i++) {
		__u32 c = i;

		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ (CRC32C_POLY & -(c & 1));
		crc_table[0][i] = c;
	}
	/* Table k: the CRC of byte i followed by k zero bytes. */
	for (i = 0; i < 256; i++)
		for (j = 1; j < 8; j++)
			crc_table[j][i] = (crc_table[j - 1][i] >> 8) ^
					  crc_table[0][crc_table[j - 1][i] & 0xff];
}

WSCHED_EXPORT __u32 wsched_crc32c_sw(__u32 seed, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	__u32 c = seed;

	pthread_once(&crc_once, crc_init);
	while (len && ((uintptr_t)p & 7)) {
		c = (c >> 8) ^ crc_table[0][(c ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		/* Bytes in stream order, so this is endian-neutral. */
		__u32 lo = c ^ ((__u32)p[0] | (__u32)p[1] << 8 |
				(__u32)p[2] << 16 | (__u32)p[3] << 24);

		c = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		    crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		    crc_table[3][p[4]] ^ crc_table[2][p[5]] ^
		    crc_table[1][p[6]] ^ crc_table[0][p[7]];
		p += 8;
		len -= 8;
	}
	while (len--)
		c = (c >> 8) ^ crc_table[0][(c ^ *p++) & 0xff];
	return c;
}

/* XXH64 ------------------------------------------------------------------ */

#define XXH_P1	0x9E3779B185EBCA87ULL
#define XXH_P2	0xC2B2AE3D27D4EB4FULL
#define XXH_P3	0x165667B19E3779F9ULL
#define XXH_P4	0x85EBCA77C2B2AE63ULL
#define XXH_P5	0x27D4EB2F165667C5ULL

static inline __u64 rotl64(__u64 x, unsigned int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline __u64 le64(const unsigned char *p)
{
	__u64 v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline __u32 le32(const unsigned char *p)
{
	return (__u32)p[0] | (__u32)p[1] << 8 | (__u32)p[2] << 16 |
	       (__u32)p[3] << 24;
}

static inline __u64 xxh_round(__u64 acc, __u64 input)
{
	acc += input * XXH_P2;
	acc = rotl64(acc, 31);
	return acc * XXH_P1;
}

static inline __u64 xxh_merge(__u64 acc, __u64 v)
{
	acc ^= xxh_round(0, v);
	return acc * XXH_P1 + XXH_P4;
}

WSCHED_EXPORT __u64 wsched_xxhash64_sw(const void *buf, size_t len, __u64 seed)
{
	const unsigned char *p = buf, *end = p + len;
	__u64 h;

	if (len >= 32) {
		__u64 v1 = seed + XXH_P1 + XXH_P2, v2 = seed + XXH_P2;
		__u64 v3 = seed, v4 = seed - XXH_P1;

		do {
			v1 = xxh_round(v1, le64(p));
			v2 = xxh_round(v2, le64(p + 8));
			v3 = xxh_round(v3, le64(p + 16));
			v4 = xxh_round(v4, le64(p + 24));
			p += 32;
		} while (end - p >= 32);
		h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
		h = xxh_merge(h, v1);
		h = xxh_merge(h, v2);
		h = xxh_merge(h, v3);
		h = xxh_merge(h, v4);
	} else {
		h = seed + XXH_P5;
	}
	h += (__u64)len;
	while (end - p >= 8) {
		h ^= xxh_round(0, le64(p));
		h = rotl64(h, 27) * XXH_P1 + XXH_P4;
		p += 8;
	}
	if (end - p >= 4) {
		h ^= (__u64)le32(p) * XXH_P1;
		h = rotl64(h, 23) * XXH_P2 + XXH_P3;
		p += 4;
	}
	while (p < end) {
		h ^= *p++ * XXH_P5;
		h = rotl64(h, 11) * XXH_P1;
	}
	h ^= h >> 33;
	h *= XXH_P2;
	h ^= h >> 29;
	h *= XXH_P3;
	h ^= h >> 32;
	return h;
}

/* SHA-256 ---------------------------------------------------------------- */

static const __u32 sha_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline __u32 rotr32(__u32 x, unsigned int r)
{
	return (x >> r) | (x << (32 - r));
}

static void sha256_block(__u32 st[8], const unsigned char *p)
{
	__u32 w[64], a, b, c, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (__u32)p[4 * i] << 24 | (__u32)p[4 * i + 1] << 16 |
		       (__u32)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		__u32 s0 = rotr32(w[i - 15], 7) ^ rotr32(w[i - 15], 18) ^ (w[i - 15] >> 3);
		__u32 s1 = rotr32(w[i - 2], 17) ^ rotr32(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = st[0]; b = st[1]; c = st[2]; d = st[3];
	e = st[4]; f = st[5]; g = st[6]; h = st[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (rotr32(e, 6) ^ rotr32(e, 11) ^ rotr32(e, 25)) +
		     ((e & f) ^ (~e & g)) + sha_k[i] + w[i];
		t2 = (rotr32(a, 2) ^ rotr32(a, 13) ^ rotr32(a, 22)) +
		     ((a & b) ^ (a & c) ^ (b & c));
		h = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	st[0] += a; st[1] += b; st[2] += c; st[3] += d;
	st[4] += e; st[5] += f; st[6] += g; st[7] += h;
}

WSCHED_EXPORT void wsched_sha256_sw(const void *buf, size_t len, __u8 digest[32])
{
	__u32 st[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	const unsigned char *p = buf;
	unsigned char tail[128];
	__u64 bits = (__u64)len * 8;
	size_t rest, n, i;

	for (n = len / 64; n; n--, p += 64)
		sha256_block(st, p);
	rest = len % 64;
	memset(tail, 0, sizeof(tail));
	memcpy(tail, p, rest);
	tail[rest] = 0x80;
	n = rest < 56 ? 64 : 128;
	for (i = 0; i < 8; i++)
		tail[n - 1 - i] = (unsigned char)(bits >> (8 * i));
	sha256_block(st, tail);
	if (n == 128)
		sha256_block(st, tail + 64);
	for (i = 0; i < 8; i++) {
		digest[4 * i] = (__u8)(st[i] >> 24);
		digest[4 * i + 1] = (__u8)(st[i] >> 16);
		digest[4 * i + 2] = (__u8)(st[i] >> 8);
		digest[4 * i + 3] = (__u8)st[i];
	}
}
