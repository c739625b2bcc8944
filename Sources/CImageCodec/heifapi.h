/*
 * libheif, loaded when first needed (dlopen of its SONAME, libheif.so.1) instead of linked:
 * loading libheif 1.15 runs its plugin registration, which initializes libde265 (de265_init:
 * ~24,700,000 instructions, callgrind) and relocates libx265, libaom, libdav1d and libde265 —
 * about 5 ms at the start of every `photos` process, HEIF or not. heif.c and versions.c include
 * this header after <libheif/heif.h>: each libheif function they call is then a pointer filled
 * by pc_heif_load (dlsym), with the declaration's own type (__typeof__).
 */
#ifndef PHOTOS_HEIFAPI_H
#define PHOTOS_HEIFAPI_H
#include <stddef.h>
#include <libheif/heif.h>

#define PC_HEIF_FUNCTIONS(X) \
    X(heif_context_add_exif_metadata) \
    X(heif_context_alloc) \
    X(heif_context_encode_image) \
    X(heif_context_encode_thumbnail) \
    X(heif_context_free) \
    X(heif_context_get_encoder_for_format) \
    X(heif_context_get_primary_image_handle) \
    X(heif_context_read_from_memory_without_copy) \
    X(heif_context_set_max_decoding_threads) \
    X(heif_context_set_maximum_image_size_limit) \
    X(heif_context_write) \
    X(heif_decode_image) \
    X(heif_decoding_options_alloc) \
    X(heif_decoding_options_free) \
    X(heif_encoder_release) \
    X(heif_encoder_set_lossy_quality) \
    X(heif_encoding_options_alloc) \
    X(heif_encoding_options_free) \
    X(heif_get_version) \
    X(heif_image_add_plane) \
    X(heif_image_create) \
    X(heif_image_get_bits_per_pixel_range) \
    X(heif_image_get_height) \
    X(heif_image_get_plane) \
    X(heif_image_get_plane_readonly) \
    X(heif_image_get_width) \
    X(heif_image_handle_get_height) \
    X(heif_image_handle_get_list_of_metadata_block_IDs) \
    X(heif_image_handle_get_list_of_thumbnail_IDs) \
    X(heif_image_handle_get_metadata) \
    X(heif_image_handle_get_metadata_content_type) \
    X(heif_image_handle_get_metadata_size) \
    X(heif_image_handle_get_nclx_color_profile) \
    X(heif_image_handle_get_raw_color_profile) \
    X(heif_image_handle_get_raw_color_profile_size) \
    X(heif_image_handle_get_thumbnail) \
    X(heif_image_handle_get_width) \
    X(heif_image_handle_has_alpha_channel) \
    X(heif_image_handle_release) \
    X(heif_image_release) \
    X(heif_image_set_nclx_color_profile) \
    X(heif_image_set_raw_color_profile) \
    X(heif_nclx_color_profile_alloc) \
    X(heif_nclx_color_profile_free) \
    X(heif_nclx_color_profile_set_color_primaries) \
    X(heif_nclx_color_profile_set_matrix_coefficients) \
    X(heif_nclx_color_profile_set_transfer_characteristics)

#define PC_HEIF_POINTER(name) extern __typeof__(name) *pc_heifapi_##name;
PC_HEIF_FUNCTIONS(PC_HEIF_POINTER)
#undef PC_HEIF_POINTER

/*
 * Loads libheif once per process (thread-safe) and resolves every function above.
 * Returns 1 when they are all there; 0 otherwise, with dlerror()'s text (or the missing
 * symbol) in `error` (`size` bytes, NUL-terminated) each time it is asked.
 */
int pc_heif_load(char *error, size_t size);

/* From here on, the calls go through the pointers. */
#define heif_context_add_exif_metadata (*pc_heifapi_heif_context_add_exif_metadata)
#define heif_context_alloc (*pc_heifapi_heif_context_alloc)
#define heif_context_encode_image (*pc_heifapi_heif_context_encode_image)
#define heif_context_encode_thumbnail (*pc_heifapi_heif_context_encode_thumbnail)
#define heif_context_free (*pc_heifapi_heif_context_free)
#define heif_context_get_encoder_for_format (*pc_heifapi_heif_context_get_encoder_for_format)
#define heif_context_get_primary_image_handle (*pc_heifapi_heif_context_get_primary_image_handle)
#define heif_context_read_from_memory_without_copy (*pc_heifapi_heif_context_read_from_memory_without_copy)
#define heif_context_set_max_decoding_threads (*pc_heifapi_heif_context_set_max_decoding_threads)
#define heif_context_set_maximum_image_size_limit (*pc_heifapi_heif_context_set_maximum_image_size_limit)
#define heif_context_write (*pc_heifapi_heif_context_write)
#define heif_decode_image (*pc_heifapi_heif_decode_image)
#define heif_decoding_options_alloc (*pc_heifapi_heif_decoding_options_alloc)
#define heif_decoding_options_free (*pc_heifapi_heif_decoding_options_free)
#define heif_encoder_release (*pc_heifapi_heif_encoder_release)
#define heif_encoder_set_lossy_quality (*pc_heifapi_heif_encoder_set_lossy_quality)
#define heif_encoding_options_alloc (*pc_heifapi_heif_encoding_options_alloc)
#define heif_encoding_options_free (*pc_heifapi_heif_encoding_options_free)
#define heif_get_version (*pc_heifapi_heif_get_version)
#define heif_image_add_plane (*pc_heifapi_heif_image_add_plane)
#define heif_image_create (*pc_heifapi_heif_image_create)
#define heif_image_get_bits_per_pixel_range (*pc_heifapi_heif_image_get_bits_per_pixel_range)
#define heif_image_get_height (*pc_heifapi_heif_image_get_height)
#define heif_image_get_plane (*pc_heifapi_heif_image_get_plane)
#define heif_image_get_plane_readonly (*pc_heifapi_heif_image_get_plane_readonly)
#define heif_image_get_width (*pc_heifapi_heif_image_get_width)
#define heif_image_handle_get_height (*pc_heifapi_heif_image_handle_get_height)
#define heif_image_handle_get_list_of_metadata_block_IDs (*pc_heifapi_heif_image_handle_get_list_of_metadata_block_IDs)
#define heif_image_handle_get_list_of_thumbnail_IDs (*pc_heifapi_heif_image_handle_get_list_of_thumbnail_IDs)
#define heif_image_handle_get_metadata (*pc_heifapi_heif_image_handle_get_metadata)
#define heif_image_handle_get_metadata_content_type (*pc_heifapi_heif_image_handle_get_metadata_content_type)
#define heif_image_handle_get_metadata_size (*pc_heifapi_heif_image_handle_get_metadata_size)
#define heif_image_handle_get_nclx_color_profile (*pc_heifapi_heif_image_handle_get_nclx_color_profile)
#define heif_image_handle_get_raw_color_profile (*pc_heifapi_heif_image_handle_get_raw_color_profile)
#define heif_image_handle_get_raw_color_profile_size (*pc_heifapi_heif_image_handle_get_raw_color_profile_size)
#define heif_image_handle_get_thumbnail (*pc_heifapi_heif_image_handle_get_thumbnail)
#define heif_image_handle_get_width (*pc_heifapi_heif_image_handle_get_width)
#define heif_image_handle_has_alpha_channel (*pc_heifapi_heif_image_handle_has_alpha_channel)
#define heif_image_handle_release (*pc_heifapi_heif_image_handle_release)
#define heif_image_release (*pc_heifapi_heif_image_release)
#define heif_image_set_nclx_color_profile (*pc_heifapi_heif_image_set_nclx_color_profile)
#define heif_image_set_raw_color_profile (*pc_heifapi_heif_image_set_raw_color_profile)
#define heif_nclx_color_profile_alloc (*pc_heifapi_heif_nclx_color_profile_alloc)
#define heif_nclx_color_profile_free (*pc_heifapi_heif_nclx_color_profile_free)
#define heif_nclx_color_profile_set_color_primaries (*pc_heifapi_heif_nclx_color_profile_set_color_primaries)
#define heif_nclx_color_profile_set_matrix_coefficients (*pc_heifapi_heif_nclx_color_profile_set_matrix_coefficients)
#define heif_nclx_color_profile_set_transfer_characteristics (*pc_heifapi_heif_nclx_color_profile_set_transfer_characteristics)

#endif
