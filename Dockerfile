# toolhost: a static binary on an empty base. Build:
#   docker build -t toolhost .
# The runtime stage is FROM ${RUNTIME_IMAGE}: scratch by default, with CA
# certificates and an unprivileged user copied in (what a distroless static
# image holds); pass --build-arg RUNTIME_IMAGE=<your distroless static image>
# to use one from your own mirror.
ARG RUNTIME_IMAGE=scratch

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X github.com/toolhost/toolhost/internal/cli.Version=${VERSION}" \
      -o /out/toolhost ./cmd/toolhost \
 && CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "-s -w" \
      -o /out/toolhost-sandbox ./cmd/toolhost-sandbox \
 && echo 'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' > /out/passwd \
 && mkdir -p /out/home/nonroot /out/work

FROM ${RUNTIME_IMAGE}
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/passwd /etc/passwd
COPY --from=build --chown=65532:65532 /out/home/nonroot /home/nonroot
COPY --from=build --chown=65532:65532 /out/work /work
COPY --from=build /out/toolhost /usr/local/bin/toolhost
COPY --from=build /out/toolhost-sandbox /usr/local/bin/toolhost-sandbox
USER 65532:65532
ENV HOME=/home/nonroot
WORKDIR /work
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/toolhost"]
CMD ["mcp", "--http", "0.0.0.0:8080", "--stateless", "--log-format", "json"]
