//! The IFRT Proxy clients that exist: every jaxlib release's client, as measured.
//!
//! An IFRT Proxy client opens its connection with a `GetVersion` request that offers two
//! ranges (`GrpcGetVersionRequest{min_version, max_version}`, each an `IfrtProxyVersion`,
//! xla/python/ifrt_proxy/common/grpc_ifrt_service.proto): the **proxy protocol** versions it
//! speaks, and, since the field `ifrt_serdes_version_number` was added to `IfrtProxyVersion`,
//! the **IFRT SerDes** versions it reads and writes. The server answers with one version of
//! each, and the client serializes every IFRT value it sends (shardings, programs...) at that
//! SerDes version.
//!
//! [`JAXLIB_CLIENTS`] is what each jaxlib release's real client offers, measured, not read from
//! sources: `cargo xtask ifrt-jaxlib-releases` installs each release from PyPI, points its own
//! client (`ifrt_proxy.get_client`, driven by jax of the same release) at a fake proxy server
//! and records the `GetVersion` request, decoded with the protobuf schema compiled into that
//! release's shared object (`interop/jaxlib/` has the scripts and says how). The server then
//! answers each SerDes version the client offers in turn, and records whether `jax.jit` still
//! sends its program ([`JitOutcome`]).
//!
//! Three eras show in the table:
//!
//! - **No SerDes field** (jaxlib 0.4.31 ... 0.6.x): the release's `IfrtProxyVersion` has no
//!   `ifrt_serdes_version_number` ([`JaxlibClient::serdes`] is `None`). A server reads the
//!   missing field as proto3's default, 0, for both ends ([`JaxlibClient::serdes_as_sent`]):
//!   IFRT Proxy's `GrpcServiceImpl::GetVersion` (xla/python/ifrt_proxy/server/grpc_service_impl.cc)
//!   passes `request->min_version().ifrt_serdes_version_number()` on as it is.
//! - **The field at its default** (0.7.0 ... 0.9.0.1): the field exists and the client offers
//!   `[0, 0]`; proto3 leaves a 0 off the wire.
//! - **A real range** (0.9.1 on): `[0, 1]`, `[0, 2]`, `[0, 3]` ... `[0, 6]`, and `[2, 6]` from
//!   0.12.0, the first client that no longer reads versions 0 and 1.
//!
//! A client may also refuse to write a program at a version it offers: jaxlib 0.10.2 offers
//! `[0, 3]`, and its `jit` fails at 0, 1 and 2 with "Unsupported IFRT SerDes version N for
//! HloProgram serialization" ([`JaxlibClient::program_floor`] is 3; 0.10.0's is 1, and every
//! release from 0.10.1 on needs 3).

use std::fmt;

use crate::error::Error;
use crate::generated::jaxlib_clients::CLIENTS;
use crate::negotiation::VersionRange;
use crate::version::SerDesVersionNumber;

/// A version of the IFRT Proxy protocol (`IfrtProxyVersion.protocol_version`). It is a history
/// of its own, apart from IFRT SerDes versions: jaxlib 0.9.2 speaks protocol 16 ... 25 and
/// IFRT SerDes 0 ... 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProxyProtocolVersion(i32);

impl ProxyProtocolVersion {
    /// The protocol version `value`.
    pub const fn new(value: i32) -> Self {
        ProxyProtocolVersion(value)
    }

    /// The number as an integer.
    pub const fn value(self) -> i32 {
        self.0
    }
}

impl fmt::Display for ProxyProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The proxy protocol versions a client offers, `[min, max]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProxyProtocolRange {
    /// `GrpcGetVersionRequest.min_version.protocol_version`.
    pub min: ProxyProtocolVersion,
    /// `GrpcGetVersionRequest.max_version.protocol_version`.
    pub max: ProxyProtocolVersion,
}

/// What `jax.jit(...).lower(...).compile()` did on a client whose server chose a given IFRT
/// SerDes version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JitOutcome {
    /// The client serialized the program (an `xla::ifrt::XlaProgram` envelope) and sent its
    /// Compile request: the client can write programs at this version.
    ProgramSent,
    /// The client refused before sending anything, with this error (the words jax raised, e.g.
    /// "FAILED_PRECONDITION: Unsupported IFRT SerDes version 2 for HloProgram serialization").
    Refused(&'static str),
    /// The run never got as far as `jit`, for this reason (e.g. the client did not finish its
    /// Init handshake with the fake server): unknown, not refused.
    NotReached(&'static str),
}

/// One measured run: the SerDes version the server answered (`None` for a release without the
/// field) and what `jit` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JitRun {
    /// The IFRT SerDes version the server chose, or `None` where the client has no such field.
    pub serdes: Option<SerDesVersionNumber>,
    /// What `jit` did.
    pub outcome: JitOutcome,
}

/// One jaxlib release's IFRT Proxy client, as measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JaxlibClient {
    release: &'static str,
    python: &'static str,
    proxy_protocol: ProxyProtocolRange,
    serdes: Option<VersionRange>,
    jit: &'static [JitRun],
}

impl JaxlibClient {
    /// A measured client; for the generated table only.
    pub(crate) const fn measured(
        release: &'static str,
        python: &'static str,
        proxy_protocol: (i32, i32),
        serdes: Option<(i32, i32)>,
        jit: &'static [JitRun],
    ) -> Self {
        JaxlibClient {
            release,
            python,
            proxy_protocol: ProxyProtocolRange {
                min: ProxyProtocolVersion(proxy_protocol.0),
                max: ProxyProtocolVersion(proxy_protocol.1),
            },
            serdes: match serdes {
                Some((min, max)) => Some(VersionRange {
                    min: SerDesVersionNumber::new(min),
                    max: SerDesVersionNumber::new(max),
                }),
                None => None,
            },
            jit,
        }
    }

    /// The jaxlib release, as PyPI names it (`0.9.2`).
    pub fn release(&self) -> &'static str {
        self.release
    }

    /// The CPython version it was measured with (`3.11`; `3.12` for jaxlib 0.11 and later,
    /// which publish no wheel for 3.11).
    pub fn python(&self) -> &'static str {
        self.python
    }

    /// The proxy protocol versions its `GetVersion` request offers.
    pub fn proxy_protocol(&self) -> ProxyProtocolRange {
        self.proxy_protocol
    }

    /// The IFRT SerDes versions its `GetVersion` request offers, or `None` where the release's
    /// `IfrtProxyVersion` has no `ifrt_serdes_version_number` field at all (up to jaxlib 0.6).
    pub fn serdes(&self) -> Option<VersionRange> {
        self.serdes
    }

    /// The IFRT SerDes range a server reads from its request: [`serdes`](Self::serdes), or
    /// `[0, 0]` where the field does not exist (proto3's default; IFRT Proxy's server uses it as
    /// it is).
    pub fn serdes_as_sent(&self) -> VersionRange {
        self.serdes.unwrap_or(VersionRange {
            min: SerDesVersionNumber::new(0),
            max: SerDesVersionNumber::new(0),
        })
    }

    /// Every measured run, the client's newest SerDes version first.
    pub fn jit_runs(&self) -> &'static [JitRun] {
        self.jit
    }

    /// What `jit` did when the server chose `version`; `None` if no run chose it (a version the
    /// client does not offer, or any version for a client without the field).
    pub fn jit_at(&self, version: SerDesVersionNumber) -> Option<JitOutcome> {
        self.jit
            .iter()
            .find(|run| run.serdes == Some(version))
            .map(|run| run.outcome)
    }

    /// The lowest IFRT SerDes version at which the client still sends a program (`jit` works),
    /// where the client offers a SerDes range and sends a program at some version of it. A
    /// server that chooses a version below it leaves the client unable to compile, although the
    /// version is inside the client's range.
    pub fn program_floor(&self) -> Option<SerDesVersionNumber> {
        self.jit
            .iter()
            .filter(|run| run.outcome == JitOutcome::ProgramSent)
            .filter_map(|run| run.serdes)
            .min()
    }
}

/// Every jaxlib release measured, oldest first (generated from `releases/jaxlib-*.json`).
pub static JAXLIB_CLIENTS: &[JaxlibClient] = CLIENTS;

/// The measured client of a jaxlib release, named as `jaxlib==0.9.2` or `0.9.2`; an
/// [`Error::UnknownJaxlibRelease`] listing the measured releases otherwise.
pub fn jaxlib_client(release: &str) -> Result<&'static JaxlibClient, Error> {
    let version = release.strip_prefix("jaxlib==").unwrap_or(release).trim();
    JAXLIB_CLIENTS
        .iter()
        .find(|client| client.release == version)
        .ok_or_else(|| Error::UnknownJaxlibRelease {
            input: release.chars().take(40).collect(),
            known: JAXLIB_CLIENTS
                .iter()
                .map(|client| client.release)
                .collect::<Vec<_>>()
                .join(", "),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(min: i32, max: i32) -> Option<VersionRange> {
        Some(VersionRange {
            min: SerDesVersionNumber::new(min),
            max: SerDesVersionNumber::new(max),
        })
    }

    #[test]
    fn lookup_takes_a_requirement_or_a_bare_release() {
        let client = jaxlib_client("jaxlib==0.9.2").unwrap();
        assert_eq!(client.release(), "0.9.2");
        assert_eq!(jaxlib_client("0.9.2").unwrap(), client);
        let error = jaxlib_client("jaxlib==0.4.30").unwrap_err();
        let text = error.to_string();
        assert!(text.contains("\"jaxlib==0.4.30\""), "{text}");
        assert!(text.contains("0.4.31, "), "{text}");
        assert!(text.contains("0.10.2"), "{text}");
        assert!(jaxlib_client("jax==0.9.2").is_err());
        assert!(jaxlib_client("").is_err());
    }

    /// The releases the issue names, as the oracle captured them.
    #[test]
    fn known_releases_offer_what_the_captures_show() {
        for (release, protocol, serdes) in [
            ("0.4.31", (3, 4), None),
            ("0.4.36", (3, 11), None),
            ("0.4.38", (3, 12), None),
            ("0.5.3", (3, 14), None),
            ("0.6.2", (3, 14), None),
            ("0.7.2", (15, 16), range(0, 0)),
            ("0.8.3", (15, 22), range(0, 0)),
            ("0.9.0", (16, 22), range(0, 0)),
            ("0.9.2", (16, 25), range(0, 1)),
            ("0.10.2", (16, 25), range(0, 3)),
        ] {
            let client = jaxlib_client(release).unwrap();
            let offered = client.proxy_protocol();
            assert_eq!(
                (offered.min.value(), offered.max.value()),
                protocol,
                "{release}"
            );
            assert_eq!(client.serdes(), serdes, "{release}");
        }
    }

    #[test]
    fn jaxlib_0_10_2_writes_programs_only_at_3() {
        let client = jaxlib_client("0.10.2").unwrap();
        assert_eq!(client.program_floor(), Some(SerDesVersionNumber::new(3)));
        assert_eq!(
            client.jit_at(SerDesVersionNumber::new(3)),
            Some(JitOutcome::ProgramSent)
        );
        for n in 0..3 {
            assert_eq!(
                client.jit_at(SerDesVersionNumber::new(n)),
                Some(JitOutcome::Refused(match n {
                    0 =>
                        "FAILED_PRECONDITION: Unsupported IFRT SerDes version 0 for HloProgram serialization",
                    1 =>
                        "FAILED_PRECONDITION: Unsupported IFRT SerDes version 1 for HloProgram serialization",
                    _ =>
                        "FAILED_PRECONDITION: Unsupported IFRT SerDes version 2 for HloProgram serialization",
                })),
                "{n}"
            );
        }
        assert_eq!(client.jit_at(SerDesVersionNumber::new(4)), None);
    }

    #[test]
    fn a_client_without_the_field_sends_zero_to_zero() {
        let client = jaxlib_client("0.6.2").unwrap();
        assert_eq!(client.serdes(), None);
        assert_eq!(Some(client.serdes_as_sent()), range(0, 0));
        assert_eq!(client.program_floor(), None);
    }
}
