//! Two simulated builds with different version ranges negotiate, then exchange ArraySpecs as
//! bytes in both directions (IFRT Proxy's client and server).

use crate::common::{build, sample_array_spec};
use ifrt_serdes::schema::{ArraySpecProto, ShardingParamShardingProto};
use ifrt_serdes::version::SerDesVersionNumber;
use ifrt_serdes::{
    ArraySpec, DeserializeOptions, Error, Registry, SerializeOptions, VersionRange, negotiate,
};
use prost::Message;

/// One side of a connection: its registry and the options it agreed on.
struct Peer {
    registry: Registry,
    options: SerializeOptions,
}

/// The handshake: the client announces its range, the server picks, both check the pick
/// against their own range.
fn connect(client: &Registry, server: &Registry) -> Result<(Peer, Peer), Error> {
    let agreed = negotiate(
        VersionRange::from(client.supported()),
        VersionRange::from(server.supported()),
    )?;
    let client_version = client.supported().version(agreed)?;
    let server_version = server.supported().version(agreed)?;
    Ok((
        Peer {
            registry: client.clone(),
            options: SerializeOptions::new(client_version),
        },
        Peer {
            registry: server.clone(),
            options: SerializeOptions::new(server_version),
        },
    ))
}

/// An ArraySpec sent as IFRT Proxy sends one: a plain `ArraySpecProto` in a request.
fn send(from: &Peer, to: &Peer, spec: &ArraySpec) -> Result<ArraySpec, Error> {
    let bytes = from.registry.to_proto_bytes(spec, &from.options)?;
    to.registry
        .from_proto_bytes(&bytes, &DeserializeOptions::default())
}

fn recorded_versions(bytes: &[u8]) -> (i32, i32, i32) {
    let spec = ArraySpecProto::decode(bytes).unwrap();
    let sharding = spec.sharding.unwrap().serialized_sharding.unwrap();
    let sharding = ShardingParamShardingProto::decode(sharding.data.as_slice()).unwrap();
    (
        spec.version_number,
        sharding.version_number,
        sharding.sharding_param.unwrap().version_number,
    )
}

#[test]
fn new_client_and_old_server_talk_in_the_old_servers_version() {
    let (client, server) = connect(&build(0, 2), &build(0, 1)).unwrap();
    assert_eq!(client.options.version().number().value(), 1);
    let spec = sample_array_spec(client.options.version().number());
    assert_eq!(send(&client, &server, &spec).unwrap(), spec);
    assert_eq!(send(&server, &client, &spec).unwrap(), spec);
    // Everything, down to the nested param, was written for the agreed version: each part
    // records its newest format at or below 1 (the param's 1, the others' 0).
    let bytes = client
        .registry
        .to_proto_bytes(&spec, &client.options)
        .unwrap();
    assert_eq!(recorded_versions(&bytes), (0, 0, 1));
}

#[test]
fn old_client_and_new_server_talk_in_the_old_clients_version() {
    let (client, server) = connect(&build(0, 0), &build(0, 2)).unwrap();
    assert_eq!(server.options.version().number().value(), 0);
    let spec = sample_array_spec(server.options.version().number());
    assert_eq!(send(&server, &client, &spec).unwrap(), spec);
    assert_eq!(send(&client, &server, &spec).unwrap(), spec);
    // A value the agreed version cannot hold fails on the sender, clearly.
    let richer = sample_array_spec(ifrt_serdes::UNREDUCED_AXES_SINCE);
    let error = send(&server, &client, &richer).unwrap_err();
    assert_eq!(
        error.to_string(),
        "ShardingParamProto with IFRT SerDes version 0 does not support `unreduced_axes`; \
         request version 1 or newer, or drop `unreduced_axes` from the value"
    );
}

#[test]
fn builds_with_raised_minimums_meet_in_the_middle() {
    let (client, server) = connect(&build(1, 2), &build(0, 1)).unwrap();
    assert_eq!(client.options.version().number().value(), 1);
    let spec = sample_array_spec(client.options.version().number());
    assert_eq!(send(&client, &server, &spec).unwrap(), spec);
}

#[test]
fn disjoint_builds_fail_to_agree_in_ifrt_proxys_words() {
    let error = connect(&build(0, 0), &build(1, 2)).err().unwrap();
    assert_eq!(
        error.to_string(),
        "IFRT Proxy client and server failed to agree on the IFRT SerDes version; supported \
         versions: client = [0, 0], server = [1, 2]"
    );
}

#[test]
fn without_negotiation_an_older_build_refuses_only_the_formats_it_does_not_know() {
    let o = DeserializeOptions::default();
    // IFRT's version 2 changed none of these formats: a build of version 1 reads what a
    // build of version 2 writes at 2 (as real IFRT Proxy peers of those builds do).
    let new = build(0, 2);
    let current = SerializeOptions::new(new.supported().current());
    let spec = sample_array_spec(new.supported().current().number());
    let bytes = new.to_proto_bytes(&spec, &current).unwrap();
    assert_eq!(
        build(0, 1).from_proto_bytes::<ArraySpec>(&bytes, &o),
        Ok(spec.clone())
    );
    // A build of version 0 does not know the param's format 1 (unreduced axes).
    let error = build(0, 0)
        .from_proto_bytes::<ArraySpec>(&bytes, &o)
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "Unsupported IFRT SerDes version 1 for ShardingParam deserialization: this build reads \
         IFRT SerDes versions [0, 0], and 1 is newer, written by a newer build; the writer must \
         request a version both builds support (negotiate one)"
    );
    // The same spec without unreduced axes records format 0 throughout: version 0 reads it.
    let plain = sample_array_spec(SerDesVersionNumber::new(0));
    let bytes = new.to_proto_bytes(&plain, &current).unwrap();
    assert_eq!(
        build(0, 0).from_proto_bytes::<ArraySpec>(&bytes, &o),
        Ok(plain)
    );
}
