/* auditkey — the keys that authenticate an audit log's head and anchors.
 *
 * Two kinds, both through OpenSSL's libcrypto (docs/audit.md, "Keyed mode"):
 *
 * - an HMAC-SHA256 key: a file whose bytes are the key (at least
 *   AUDIT_KEY_MIN_BYTES; `head -c 32 /dev/urandom > audit.key`). The writer
 *   and the verifier hold the same secret.
 * - an Ed25519 key pair in PEM (`openssl genpkey -algorithm ed25519`): the
 *   writer signs with the private key; anyone verifies with the public key
 *   (`openssl pkey -in KEY.pem -pubout`), and only the holder of the private
 *   key can sign.
 *
 * A key has an id, "hmac-sha256:FINGERPRINT" or "ed25519:FINGERPRINT" (16 hex
 * digits of SHA-256 over a tag and the key, or over the raw public key),
 * stored beside the MAC so that verify can tell a wrong key from a forged
 * head. What is authenticated is a 32-byte hash (the head's, an anchor's).
 *
 * Ownership: audit_key_load returns a key the caller frees with
 * audit_key_free (the secret is wiped); errors name the file. */
#ifndef HL_AUDITKEY_H
#define HL_AUDITKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AUDIT_KEY_MIN_BYTES 16
#define AUDIT_KEY_MAX_BYTES 4096
#define AUDIT_KEY_ID_MAX 48
#define AUDIT_MAC_MAX 64          /* an Ed25519 signature; an HMAC-SHA256 is 32 */

struct audit_key;

/* Reads path: a PEM Ed25519 private key, a PEM Ed25519 public key (only
 * when `public_ok`: it can verify, not sign), or else raw HMAC key bytes.
 * NULL with a message in err. */
struct audit_key *audit_key_load(const char *path, bool public_ok, char *err, size_t errlen);
void audit_key_free(struct audit_key *k);
/* "hmac-sha256:0123456789abcdef" or "ed25519:...". */
const char *audit_key_id(const struct audit_key *k);
/* True when the key can make MACs (an HMAC key or an Ed25519 private key). */
bool audit_key_can_sign(const struct audit_key *k);
/* The MAC (or signature) of hash into mac (AUDIT_MAC_MAX bytes); its length
 * in *len. 0, or -1 (OpenSSL failed, or a public key). */
int audit_key_sign(const struct audit_key *k, const uint8_t hash[32], uint8_t *mac, size_t *len);
/* 1 when mac authenticates hash under k, 0 when it does not, -1 when
 * OpenSSL failed. */
int audit_key_verify(const struct audit_key *k, const uint8_t hash[32], const uint8_t *mac, size_t len);

#endif
