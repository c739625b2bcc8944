#ifndef PHOTOS_CXML2_SHIM_H
#define PHOTOS_CXML2_SHIM_H
/* libxml2 (Debian libxml2-dev): its streaming reader (xmlTextReader), for GPX tracks.
   Debian builds libxml2 with ICU, whose headers encoding.h would include and which clash with
   the toolchain's own ICU module (_FoundationICU): the ICU part of the API (an encoding
   handler's converters, never used here) is left out of the import. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
#endif
