# Entry points: `make demo` (the main job) and `make test` (every test).
# Both install missing Debian dependencies first (scripts/install-deps.sh).
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all deps configure build test demo bench install clean vscode

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLSDBG_WERROR=ON >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure --timeout 600 -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)

bench: build
	@bash bench/run-all.sh $(BUILD)

# The VS Code extension: npm packages from the committed lockfile, the
# adapter (out/debugAdapter.js) and vscode-extension/slsdbg-VERSION.vsix.
vscode: deps
	cd vscode-extension && npm ci --no-audit --no-fund --loglevel=error && npx tsc -p . && npx vsce package --allow-missing-repository --skip-license

# DESTDIR=/tmp/stage make install stages it; PREFIX defaults to /usr/local.
install: build
	cmake --install $(BUILD) --prefix $(or $(PREFIX),/usr/local)

clean:
	rm -rf $(BUILD)
