# Papierkram in one image: the binary and the Debian engines it drives.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /papierkram ./cmd/papierkram

FROM debian:12-slim
COPY scripts/setup.sh /usr/local/lib/papierkram/setup.sh
COPY scripts/fontconfig /usr/local/lib/papierkram/fontconfig
RUN PAPIERKRAM_SETUP=runtime bash /usr/local/lib/papierkram/setup.sh && rm -rf /var/lib/apt/lists/* \
    && useradd --system --create-home --home-dir /var/lib/papierkram papierkram
COPY --from=build /papierkram /usr/local/bin/papierkram
# Not root: Chromium refuses its sandbox as root. The sandbox itself needs unprivileged user
# namespaces, which Docker's default seccomp profile forbids; without them the service logs
# a warning and renders without the sandbox. To keep it, run with a seccomp profile that
# allows clone/unshare with CLONE_NEWUSER (or --security-opt seccomp=unconfined), on a host
# where user namespaces are on (Ubuntu 24.04+: kernel.apparmor_restrict_unprivileged_userns=0
# or an AppArmor profile for Chromium).
USER papierkram
ENV PAPIERKRAM_ADDR=:8080 PAPIERKRAM_DATA_DIR=/var/lib/papierkram/data
VOLUME /var/lib/papierkram/data
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s CMD ["/usr/bin/env", "bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET /health HTTP/1.0\\r\\n\\r\\n' >&3 && grep -q ' 200 ' <&3"]
ENTRYPOINT ["/usr/local/bin/papierkram"]
CMD ["serve"]
