/* auditkey — HMAC-SHA256 and Ed25519 keys for the audit log (OpenSSL
 * libcrypto). See auditkey.h. */
#include "analysis/auditkey.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

enum kind { KEY_HMAC, KEY_ED25519 };

struct audit_key {
	enum kind kind;
	unsigned char *secret;      /* HMAC: the key bytes */
	size_t len;
	EVP_PKEY *pkey;             /* Ed25519 */
	bool priv;
	char id[AUDIT_KEY_ID_MAX];
};

static const char hmac_id_tag[] = "hetlab-audit-key-v2";

static void hex16(const unsigned char *md, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < 8; i++) {
		out[2 * i] = digits[md[i] >> 4];
		out[2 * i + 1] = digits[md[i] & 15];
	}
	out[16] = '\0';
}

/* SHA-256 of a and b, the first 8 bytes as hex. 0 or -1. */
static int fingerprint(const void *a, size_t alen, const void *b, size_t blen, char out[17])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL) == 1 &&
	         EVP_DigestUpdate(c, a, alen) == 1 && EVP_DigestUpdate(c, b, blen) == 1 &&
	         EVP_DigestFinal_ex(c, md, &n) == 1;
	EVP_MD_CTX_free(c);
	if (!ok)
		return -1;
	hex16(md, out);
	return 0;
}

/* A PEM passphrase prompt would block a batch job: encrypted keys are refused. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)buf, (void)size, (void)rwflag, (void)u;
	return 0;
}

static struct audit_key *load_pem(const char *path, const unsigned char *text, size_t n,
                                  bool public_ok, char *err, size_t errlen)
{
	bool is_public = strstr((const char *)text, "-----BEGIN PUBLIC KEY-----") != NULL;
	if (is_public && !public_ok) {
		snprintf(err, errlen, "%s: a public key cannot sign: give the private key (the public"
		         " one is for hetlab audit verify --pubkey)", path);
		return NULL;
	}
	BIO *bio = BIO_new_mem_buf(text, (int)n);
	EVP_PKEY *pk = NULL;
	if (bio)
		pk = is_public ? PEM_read_bio_PUBKEY(bio, NULL, no_passphrase, NULL)
		               : PEM_read_bio_PrivateKey(bio, NULL, no_passphrase, NULL);
	BIO_free(bio);
	if (!pk) {
		snprintf(err, errlen, "%s: not a PEM %s key that OpenSSL can read (an encrypted key is"
		         " not supported)", path, is_public ? "public" : "private");
		return NULL;
	}
	if (EVP_PKEY_id(pk) != EVP_PKEY_ED25519) {
		snprintf(err, errlen, "%s: a PEM key of another type than Ed25519 (make one with"
		         " `openssl genpkey -algorithm ed25519`)", path);
		EVP_PKEY_free(pk);
		return NULL;
	}
	unsigned char raw[64];
	size_t rlen = sizeof raw;
	struct audit_key *k = calloc(1, sizeof *k);
	char fp[17];
	if (!k || EVP_PKEY_get_raw_public_key(pk, raw, &rlen) != 1 ||
	    fingerprint(raw, rlen, "", 0, fp) < 0) {
		snprintf(err, errlen, "%s: cannot read the Ed25519 key (OpenSSL)", path);
		free(k);
		EVP_PKEY_free(pk);
		return NULL;
	}
	k->kind = KEY_ED25519;
	k->pkey = pk;
	k->priv = !is_public;
	snprintf(k->id, sizeof k->id, "ed25519:%s", fp);
	return k;
}

/* Up to max bytes of path's regular file into buf (*st its status): the
 * count, or -1 with err. A FIFO, a device or a directory is refused at once
 * (opened non-blocking: a FIFO would wait for a writer). */
static long read_key_file(const char *path, unsigned char *buf, size_t max, struct stat *st, char *err,
                          size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot read the key: %s", path, strerror(errno));
		return -1;
	}
	long n = 0;
	if (fstat(fd, st) != 0) {
		snprintf(err, errlen, "%s: cannot read the key: %s", path, strerror(errno));
		n = -1;
	} else if (!S_ISREG(st->st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (%s): a key is a file", path,
		         S_ISFIFO(st->st_mode) ? "a FIFO" : S_ISDIR(st->st_mode) ? "a directory" :
		         S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ? "a device" : "not a file");
		n = -1;
	}
	while (n >= 0 && (size_t)n < max) {
		ssize_t r = read(fd, buf + n, max - (size_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "%s: cannot read the key: %s", path, strerror(errno));
			n = -1;
		}
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	return n;
}

struct audit_key *audit_key_load(const char *path, bool public_ok, char *err, size_t errlen)
{
	unsigned char *buf = malloc(AUDIT_KEY_MAX_BYTES + 2);
	if (!buf) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	struct stat st;
	long got = read_key_file(path, buf, AUDIT_KEY_MAX_BYTES + 1, &st, err, errlen);
	bool bad = got < 0;
	size_t n = got < 0 ? 0 : (size_t)got;
	struct audit_key *k = NULL;
	if (bad) {
		/* err says why */
	} else if (n > AUDIT_KEY_MAX_BYTES) {
		snprintf(err, errlen, "%s: more than %d bytes: not a key file", path, AUDIT_KEY_MAX_BYTES);
	} else if (n >= 11 && memcmp(buf, "-----BEGIN ", 11) == 0) {
		buf[n] = '\0';
		k = load_pem(path, buf, n, public_ok, err, errlen);
	} else if (n < AUDIT_KEY_MIN_BYTES) {
		snprintf(err, errlen, "%s: %zu bytes: an HMAC key needs at least %d (`head -c 32"
		         " /dev/urandom > %s` makes one)", path, n, AUDIT_KEY_MIN_BYTES, path);
	} else {
		char fp[17];
		k = calloc(1, sizeof *k);
		if (!k || fingerprint(hmac_id_tag, sizeof hmac_id_tag, buf, n, fp) < 0) {
			snprintf(err, errlen, "%s: cannot set up the key (OpenSSL)", path);
			free(k);
			k = NULL;
		} else {
			k->kind = KEY_HMAC;
			k->secret = buf;
			k->len = n;
			k->priv = true;
			snprintf(k->id, sizeof k->id, "hmac-sha256:%s", fp);
			buf = NULL;
		}
	}
	if (buf) {
		OPENSSL_cleanse(buf, AUDIT_KEY_MAX_BYTES + 2);
		free(buf);
	}
	if (k && k->priv && (st.st_mode & 077)) {
		/* As ssh does with a private key: a secret others can read is
		 * no longer only the holder's. */
		snprintf(err, errlen, "%s: a secret key that others may read (mode %04o): `chmod 600 %s` (and make a new "
		         "key if others may have read it)", path, (unsigned)(st.st_mode & 07777), path);
		audit_key_free(k);
		k = NULL;
	}
	return k;
}

void audit_key_free(struct audit_key *k)
{
	if (!k)
		return;
	if (k->secret) {
		OPENSSL_cleanse(k->secret, k->len);
		free(k->secret);
	}
	EVP_PKEY_free(k->pkey);
	free(k);
}

const char *audit_key_id(const struct audit_key *k)
{
	return k->id;
}

bool audit_key_can_sign(const struct audit_key *k)
{
	return k->priv;
}

static int hmac(const struct audit_key *k, const uint8_t hash[32], uint8_t *mac, size_t *len)
{
	size_t n = 0;
	if (!EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, k->secret, k->len, hash, 32, mac,
	               AUDIT_MAC_MAX, &n) || n != 32)
		return -1;
	*len = n;
	return 0;
}

int audit_key_sign(const struct audit_key *k, const uint8_t hash[32], uint8_t *mac, size_t *len)
{
	if (!k->priv)
		return -1;
	if (k->kind == KEY_HMAC)
		return hmac(k, hash, mac, len);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	size_t n = AUDIT_MAC_MAX;
	int ok = c && EVP_DigestSignInit(c, NULL, NULL, NULL, k->pkey) == 1 &&
	         EVP_DigestSign(c, mac, &n, hash, 32) == 1;
	EVP_MD_CTX_free(c);
	if (!ok)
		return -1;
	*len = n;
	return 0;
}

int audit_key_verify(const struct audit_key *k, const uint8_t hash[32], const uint8_t *mac, size_t len)
{
	if (k->kind == KEY_HMAC) {
		uint8_t want[AUDIT_MAC_MAX];
		size_t n = 0;
		if (hmac(k, hash, want, &n) < 0)
			return -1;
		return len == n && CRYPTO_memcmp(want, mac, n) == 0;
	}
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	if (!c || EVP_DigestVerifyInit(c, NULL, NULL, NULL, k->pkey) != 1) {
		EVP_MD_CTX_free(c);
		return -1;
	}
	int r = EVP_DigestVerify(c, mac, len, hash, 32);
	EVP_MD_CTX_free(c);
	return r == 1;
}
