// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Linked into build/abicap-static only, in place of GnuTLS. Debian ships
 * libmicrohttpd.a, built with HTTPS support, and libgnutls.a, but not the
 * static libraries GnuTLS needs in turn (libp11-kit.a, libunistring.a), so
 * a fully static abicap serve cannot link the real GnuTLS. abicap serve
 * never asks libmicrohttpd for TLS (no MHD_USE_TLS): of the functions below
 * only gnutls_global_init/deinit run (from libmicrohttpd's constructor and
 * destructor); every other one fails, so a TLS session could never start.
 */
#include <gnutls/gnutls.h>
#include <gnutls/abstract.h>
#include <stdlib.h>

gnutls_alloc_function gnutls_malloc = malloc;

int gnutls_global_init(void)
{
	return GNUTLS_E_SUCCESS;
}

void gnutls_global_deinit(void)
{
}

const char *gnutls_strerror(int error)
{
	(void)error;
	return "TLS is not built into this abicap";
}

/* libmicrohttpd 1.0 (trixie, the riscv64 build) sets priorities at start */
int gnutls_priority_init2(gnutls_priority_t *priority, const char *priorities,
			  const char **err_pos, unsigned int flags)
{
	(void)priority; (void)priorities; (void)err_pos; (void)flags;
	return GNUTLS_E_UNIMPLEMENTED_FEATURE;
}

int gnutls_init(gnutls_session_t *session, unsigned int flags)
{
	(void)session; (void)flags;
	return GNUTLS_E_UNIMPLEMENTED_FEATURE;
}

void gnutls_deinit(gnutls_session_t session)
{
	(void)session;
}

int gnutls_priority_init(gnutls_priority_t *priority_cache,
			 const char *priorities, const char **err_pos)
{
	(void)priority_cache; (void)priorities; (void)err_pos;
	return GNUTLS_E_UNIMPLEMENTED_FEATURE;
}

void gnutls_priority_deinit(gnutls_priority_t priority_cache)
{
	(void)priority_cache;
}

int gnutls_priority_set(gnutls_session_t session, gnutls_priority_t priority)
{
	(void)session; (void)priority;
	return GNUTLS_E_UNIMPLEMENTED_FEATURE;
}

int gnutls_certificate_allocate_credentials(gnutls_certificate_credentials_t *res)
{
	(void)res;
	return GNUTLS_E_UNIMPLEMENTED_FEATURE;
}

void gnutls_certificate_free_credentials(gnutls_certificate_credentials_t sc)
{
	(void)sc;
}

void gnutls_certificate_server_set_request(gnutls_session_t session,
					   gnutls_certificate_request_t req)
{
	(void)session; (void)req;
}

void gnutls_certificate_set_dh_params(gnutls_certificate_credentials_t res,
				      gnutls_dh_params_t dh_params)
{
	(void)res; (void)dh_params;
}

void gnutls_certificate_set_retrieve_function2(gnutls_certificate_credentials_t cred,
					       gnutls_certificate_retrieve_function2 *func)
{
	(void)cred; (void)func;
}

void gnutls_certificate_set_retrieve_function3(gnutls_certificate_credentials_t cred,
					       gnutls_certificate_retrieve_function3 *func)
{
	(void)cred; (void)func;
}

int gnutls_certificate_set_x509_key_mem(gnutls_certificate_credentials_t res,
					const gnutls_datum_t *cert,
					const gnutls_datum_t *key,
					gnutls_x509_crt_fmt_t type)
{
	(void)res; (void)cert; (void)key; (void)type;
	return GNUTLS_E_UNIMPLEMENTED_FEATURE;
}

int gnutls_certificate_set_x509_key_mem2(gnutls_certificate_credentials_t res,
					 const gnutls_datum_t *cert,
					 const gnutls_datum_t *key,
					 gnutls_x509_crt_fmt_t type,
					 const char *pass, unsigned int flags)
{
	(void)res; (void)cert; (void)key; (void)type; (void)pass; (void)flags;
	return GNUTLS_E_UNIMPLEMENTED_FEATURE;
}

int gnutls_certificate_set_x509_trust_mem(gnutls_certificate_credentials_t res,
					  const gnutls_datum_t *ca,
					  gnutls_x509_crt_fmt_t type)
{
	(void)res; (void)ca; (void)type;
	return GNUTLS_E_UNIMPLEMENTED_FEATURE;
}

int gnutls_dh_params_init(gnutls_dh_params_t *dh_params)
{
	(void)dh_params;
	return GNUTLS_E_UNIMPLEMENTED_FEATURE;
}

void gnutls_dh_params_deinit(gnutls_dh_params_t dh_params)
{
	(void)dh_params;
}

int gnutls_dh_params_import_pkcs3(gnutls_dh_params_t params,
				  const gnutls_datum_t *pkcs3_params,
				  gnutls_x509_crt_fmt_t format)
{
	(void)params; (void)pkcs3_params; (void)format;
	return GNUTLS_E_UNIMPLEMENTED_FEATURE;
}

int gnutls_psk_allocate_server_credentials(gnutls_psk_server_credentials_t *sc)
{
	(void)sc;
	return GNUTLS_E_UNIMPLEMENTED_FEATURE;
}

void gnutls_psk_free_server_credentials(gnutls_psk_server_credentials_t sc)
{
	(void)sc;
}

void gnutls_psk_set_server_credentials_function(gnutls_psk_server_credentials_t cred,
						gnutls_psk_server_credentials_function *func)
{
	(void)cred; (void)func;
}

int gnutls_credentials_set(gnutls_session_t session,
			   gnutls_credentials_type_t type, void *cred)
{
	(void)session; (void)type; (void)cred;
	return GNUTLS_E_UNIMPLEMENTED_FEATURE;
}

int gnutls_alpn_set_protocols(gnutls_session_t session,
			      const gnutls_datum_t *protocols,
			      unsigned protocols_size, unsigned flags)
{
	(void)session; (void)protocols; (void)protocols_size; (void)flags;
	return GNUTLS_E_UNIMPLEMENTED_FEATURE;
}

int gnutls_handshake(gnutls_session_t session)
{
	(void)session;
	return GNUTLS_E_UNIMPLEMENTED_FEATURE;
}

int gnutls_bye(gnutls_session_t session, gnutls_close_request_t how)
{
	(void)session; (void)how;
	return GNUTLS_E_UNIMPLEMENTED_FEATURE;
}

ssize_t gnutls_record_recv(gnutls_session_t session, void *data,
			   size_t data_size)
{
	(void)session; (void)data; (void)data_size;
	return GNUTLS_E_UNIMPLEMENTED_FEATURE;
}

ssize_t gnutls_record_send(gnutls_session_t session, const void *data,
			   size_t data_size)
{
	(void)session; (void)data; (void)data_size;
	return GNUTLS_E_UNIMPLEMENTED_FEATURE;
}

size_t gnutls_record_check_pending(gnutls_session_t session)
{
	(void)session;
	return 0;
}

int gnutls_record_get_direction(gnutls_session_t session)
{
	(void)session;
	return 0;
}

gnutls_cipher_algorithm_t gnutls_cipher_get(gnutls_session_t session)
{
	(void)session;
	return GNUTLS_CIPHER_UNKNOWN;
}

gnutls_protocol_t gnutls_protocol_get_version(gnutls_session_t session)
{
	(void)session;
	return GNUTLS_VERSION_UNKNOWN;
}

void *gnutls_session_get_ptr(gnutls_session_t session)
{
	(void)session;
	return NULL;
}

void gnutls_session_set_ptr(gnutls_session_t session, void *ptr)
{
	(void)session; (void)ptr;
}

void gnutls_transport_set_int2(gnutls_session_t session, int r, int s)
{
	(void)session; (void)r; (void)s;
}
