/* aclx — see aclx.h. */
#include "aclx.h"

#include <string.h>

#define ACLX_VERSION 2
#define ACLX_HEADER 4
#define ACLX_ENTRY 8
#define ACLX_USER 2
#define ACLX_GROUP 8

bool aclx_is_acl_name(const char *name)
{
    return !strcmp(name, "system.posix_acl_access") || !strcmp(name, "system.posix_acl_default");
}

static bool well_formed(const void *value, size_t len)
{
    if (!value || len < ACLX_HEADER || (len - ACLX_HEADER) % ACLX_ENTRY != 0)
        return false;
    uint32_t version;
    memcpy(&version, value, sizeof version);
    return version == ACLX_VERSION;
}

/* Entry i names an id that does not exist. */
static bool entry_unmapped(const unsigned char *e, aclx_mapped_fn mapped, void *ctx)
{
    uint16_t tag;
    uint32_t id;
    memcpy(&tag, e, sizeof tag);
    memcpy(&id, e + 4, sizeof id);
    if (tag != ACLX_USER && tag != ACLX_GROUP)
        return false;
    return !mapped(ctx, tag == ACLX_GROUP, id);
}

size_t aclx_count_unmapped(const void *value, size_t len, aclx_mapped_fn mapped, void *ctx)
{
    if (!well_formed(value, len))
        return 0;
    size_t n = 0;
    for (size_t at = ACLX_HEADER; at < len; at += ACLX_ENTRY)
        n += entry_unmapped((const unsigned char *)value + at, mapped, ctx);
    return n;
}

size_t aclx_drop_unmapped(void *value, size_t len, aclx_mapped_fn mapped, void *ctx)
{
    if (!well_formed(value, len))
        return len;
    unsigned char *v = value;
    size_t out = ACLX_HEADER;
    for (size_t at = ACLX_HEADER; at < len; at += ACLX_ENTRY) {
        if (entry_unmapped(v + at, mapped, ctx))
            continue;
        if (out != at)
            memmove(v + out, v + at, ACLX_ENTRY);
        out += ACLX_ENTRY;
    }
    return out;
}
