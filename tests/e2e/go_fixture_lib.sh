# Shared by the tests that build a Go fixture (sourced, not a test).
# go_fixture NAME DIR: builds tests/programs/NAME.go as DIR/gosrc/NAME (its
# source there as main.go; GOCACHE defaults to $SLSDBG_BUILD_DIR/gocache).
# Status 2 where Go is not installed (CI's Debian), 1 when the build fails.
go_fixture() {
  local name=$1 dir=$2/gosrc go
  go=$(command -v go || echo /usr/local/go/bin/go)
  [ -x "$go" ] || return 2
  mkdir -p "$dir"
  cp "$SLSDBG_SOURCE_DIR/tests/programs/$name.go" "$dir/main.go"
  printf 'module %s\ngo 1.21\n' "$name" >"$dir/go.mod"
  (cd "$dir" && GOCACHE=${GOCACHE:-$SLSDBG_BUILD_DIR/gocache} GOFLAGS=-buildvcs=false "$go" build -o "$name" .) || return 1
}
