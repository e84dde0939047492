-- roles.sql — the store's two roles (docs/store.md, "Roles"): run once, as the store's owner,
-- after `buildtrail store init` (and again after an upgrade that adds tables):
--   psql -d builds -f store/roles.sql
--   CREATE ROLE builder LOGIN IN ROLE buildtrail_push;   -- a machine that pushes
--   CREATE ROLE auditor LOGIN IN ROLE buildtrail_read;   -- someone who asks
-- buildtrail_push may add builds and read what a push must look up (the schema's version, the
-- interned content, whether a trace is there): never UPDATE or DELETE, so a builder cannot
-- alter or remove what others pushed (`store rm` is the owner's).  buildtrail_read may only
-- read, tables and views.  A push also makes temporary tables: PostgreSQL grants TEMPORARY on
-- every database to PUBLIC by default; where that was revoked, grant it to buildtrail_push.
DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'buildtrail_push') THEN
        CREATE ROLE buildtrail_push NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'buildtrail_read') THEN
        CREATE ROLE buildtrail_read NOLOGIN;
    END IF;
END $$;
GRANT USAGE ON SCHEMA public TO buildtrail_push, buildtrail_read;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO buildtrail_read;
GRANT SELECT ON bt_schema TO buildtrail_push;
GRANT SELECT, INSERT ON content, path, argv, package, build, build_label, process, version,
    product, closure, edge, product_package, build_package TO buildtrail_push;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO buildtrail_push;
