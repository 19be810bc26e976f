//! Lists of devices. One format so far, format 0: `{ device_ids = 1, version_number = 2 }`
//! (xla/python/ifrt/device.proto; `version_number` since jaxlib 0.6.2, absent before). IFRT's
//! `DeviceList::ToProto` (xla/python/ifrt/device_list.cc) records `SerDesVersionNumber(0)`
//! whatever version is requested, and `FromProto` refuses every other number.

use crate::codec::{SerializeOptions, encode_message};
use crate::error::{Error, InvalidValue};
use crate::format::Formats;
use crate::generated::xla::ifrt::DeviceListProto;
use crate::proto_codec::ProtoCodec;
use crate::registry::Registry;
use crate::spare::{Spare, refill};
use crate::version::{SerDesVersion, SerDesVersionNumber};

/// An ordered list of devices, by id (IFRT's `DeviceList`, xla/python/ifrt/device_list.h).
///
/// IFRT's `DeviceList::FromProto` looks every id up in its client (`Client::LookupDevice`),
/// which fails for an id the client does not have; this crate has no client, so it keeps the
/// ids, refusing only negative ones, which no client has. As in IFRT, the list may be empty and
/// may name a device more than once (`Client::MakeDeviceList` checks neither).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct DeviceList {
    device_ids: Vec<i32>,
}

impl DeviceList {
    /// The devices `device_ids`, in that order, or [`InvalidValue::NegativeDeviceId`].
    pub fn new(device_ids: Vec<i32>) -> Result<Self, Error> {
        if let Some(&device_id) = device_ids.iter().find(|id| **id < 0) {
            return Err(InvalidValue::NegativeDeviceId { device_id }.into());
        }
        Ok(DeviceList { device_ids })
    }

    /// The device ids, in order.
    pub fn device_ids(&self) -> &[i32] {
        &self.device_ids
    }

    /// The device ids, taken out of the list.
    pub(crate) fn into_device_ids(self) -> Vec<i32> {
        self.device_ids
    }

    /// Overwrites `proto` with the message for `options`, reusing its buffer.
    fn fill_proto(
        &self,
        options: &SerializeOptions,
        proto: &mut DeviceListProto,
    ) -> Result<(), Error> {
        proto.version_number = record_format(options.version())?;
        refill(&mut proto.device_ids, &self.device_ids);
        Ok(())
    }
}

/// The format a device list records when `version` is requested: format 0, the only one, whatever
/// the version (IFRT's `DeviceList::ToProto`).
fn record_format(version: SerDesVersion) -> Result<i32, Error> {
    let formats = <DeviceList as ProtoCodec>::FORMATS;
    Ok(formats.record(formats.oldest(), version)?.value())
}

/// The message of the device ids `ids` for `version`, for the values that nest a device list in
/// their own message (the shardings, which have checked the ids already): what a [`DeviceList`]
/// of them writes.
pub(crate) fn device_list_proto(
    ids: &[i32],
    version: SerDesVersion,
) -> Result<DeviceListProto, Error> {
    Ok(DeviceListProto {
        version_number: record_format(version)?,
        device_ids: ids.to_vec(),
    })
}

impl ProtoCodec for DeviceList {
    type Proto = DeviceListProto;
    const PROTO_NAME: &'static str = "xla.ifrt.DeviceListProto";
    const FORMATS: Formats = Formats::new("DeviceList", &[SerDesVersionNumber::new(0)]);

    fn to_proto(&self, options: &SerializeOptions, _: &Registry) -> Result<DeviceListProto, Error> {
        let mut proto = DeviceListProto::default();
        self.fill_proto(options, &mut proto)?;
        Ok(proto)
    }

    fn from_proto(proto: DeviceListProto, registry: &Registry) -> Result<Self, Error> {
        registry.read_format(&Self::FORMATS, proto.version_number)?;
        DeviceList::new(proto.device_ids)
    }

    fn write_proto(
        &self,
        options: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        DeviceListProto::with_spare(|proto| {
            self.fill_proto(options, proto)?;
            encode_message(proto, out);
            Ok(())
        })
    }
}
