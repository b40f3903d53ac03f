#!/usr/bin/env bash
# Builds, from Debian's packages, local stand-ins for the two images that Waypost's Containerfile
# and compose.yaml start from, for a machine that cannot pull images (docs/container.md):
#
#   debian    docker.io/library/debian:bookworm-slim: debootstrap (minbase) into a folder, trimmed
#             like the official slim image (no manuals, no documentation but copyrights, apt keeps
#             no downloaded packages), then `podman import`.
#   postgres  docker.io/library/postgres:15: Debian's postgresql-15 on the image above, with an
#             entrypoint that honours the official image's POSTGRES_USER, POSTGRES_PASSWORD,
#             POSTGRES_DB and PGDATA, its volume /var/lib/postgresql/data and its pg_isready.
#
# So the Containerfile and compose.yaml build and run unchanged. Where images can be pulled,
# none of this is needed. The image's apt sources are the host's Debian ones when the host runs
# bookworm (/etc/apt/sources.list.d/debian.sources), else the mirror debootstrap chose.
#
# Usage: scripts/container-base.sh [debian|postgres|all]    (default all; root; needs debootstrap, podman)
#   FORCE=1 rebuilds an image that exists already.
#   CONTAINER_BUILD_ARGS: more arguments for `podman build` (default: the ulimits this project's
#   machines need, see docs/container.md).
set -euo pipefail

what=${1:-all}
debian_image=docker.io/library/debian:bookworm-slim
postgres_image=docker.io/library/postgres:15
read -r -a build_args <<<"${CONTAINER_BUILD_ARGS:---ulimit nofile=1024:1024 --ulimit nproc=1000:1000}"

say() { printf 'container-base: %s\n' "$*" >&2; }

have() {
  [[ ${FORCE:-} != 1 ]] && podman image exists "$1"
}

build_debian() {
  if have "$debian_image"; then
    say "$debian_image exists (FORCE=1 rebuilds it)"
    return
  fi
  command -v debootstrap >/dev/null || {
    say "debootstrap is missing: apt-get install debootstrap"
    exit 1
  }
  local root
  root=$(mktemp -d "${TMPDIR:-/tmp}/waypost-debian.XXXXXX")
  # shellcheck disable=SC2064 # the folder is known now
  trap "rm -rf '$root'" RETURN
  say "debootstrap bookworm (minbase) into $root"
  debootstrap --variant=minbase bookworm "$root" >"$root.log" 2>&1 || {
    tail -20 "$root.log" >&2
    exit 1
  }
  rm -f "$root.log"

  # What the official slim image does: no manuals or documentation from later installs, apt
  # keeps no .deb files, no translations.
  cat >"$root/etc/dpkg/dpkg.cfg.d/slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
EOF
  cat >"$root/etc/apt/apt.conf.d/slim-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
Acquire::Languages "none";
EOF
  find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
  rm -rf "$root"/usr/share/{man,info,groff,lintian,linda}/* "$root"/usr/share/locale/*
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/var/log/*.log "$root"/tmp/*

  if [[ -f /etc/apt/sources.list.d/debian.sources ]] && grep -q '^VERSION_CODENAME=bookworm$' /etc/os-release; then
    cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/debian.sources"
    rm -f "$root/etc/apt/sources.list"
  fi

  say "importing as $debian_image"
  tar --numeric-owner -C "$root" -c . | podman import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' - "$debian_image" >/dev/null
}

build_postgres() {
  if have "$postgres_image"; then
    say "$postgres_image exists (FORCE=1 rebuilds it)"
    return
  fi
  local context
  context=$(mktemp -d "${TMPDIR:-/tmp}/waypost-postgres.XXXXXX")
  # shellcheck disable=SC2064 # the folder is known now
  trap "rm -rf '$context'" RETURN

  # The official image's start: on an empty PGDATA, initdb with POSTGRES_USER and
  # POSTGRES_PASSWORD, create POSTGRES_DB, accept password logins from the network; then run
  # postgres as the postgres user.
  cat >"$context/entrypoint.sh" <<'EOF'
#!/bin/sh
set -eu
export PGDATA="${PGDATA:-/var/lib/postgresql/data}"
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
  user="${POSTGRES_USER:-postgres}"
  db="${POSTGRES_DB:-$user}"
  printf '%s\n' "$POSTGRES_PASSWORD" >/tmp/pwfile
  initdb --username="$user" --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f /tmp/pwfile
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    psql -v ON_ERROR_STOP=1 --username="$user" --dbname=postgres -c "CREATE DATABASE \"$db\"" >/dev/null
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
  echo "PostgreSQL init process complete; ready for start up."
fi
if [ "${1:-}" = postgres ]; then
  shift
  exec postgres -c listen_addresses='*' "$@"
fi
exec "$@"
EOF
  cat >"$context/Containerfile" <<EOF
FROM $debian_image
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-common \\
 && sed -ri 's/#(create_main_cluster) .*\$/\\1 = false/' /etc/postgresql-common/createcluster.conf \\
 && apt-get install -y --no-install-recommends postgresql-15 \\
 && rm -rf /var/lib/apt/lists/*
ENV PATH=/usr/lib/postgresql/15/bin:\$PATH PGDATA=/var/lib/postgresql/data
COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh
RUN chmod 755 /usr/local/bin/docker-entrypoint.sh && mkdir -p \$PGDATA && chown postgres:postgres \$PGDATA && chmod 700 \$PGDATA
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
EOF
  say "building $postgres_image from Debian's postgresql-15"
  podman build --format docker "${build_args[@]}" -t "$postgres_image" "$context" >&2
}

case $what in
  debian) build_debian ;;
  postgres)
    build_debian
    build_postgres
    ;;
  all)
    build_debian
    build_postgres
    ;;
  *)
    say "usage: scripts/container-base.sh [debian|postgres|all]"
    exit 2
    ;;
esac
