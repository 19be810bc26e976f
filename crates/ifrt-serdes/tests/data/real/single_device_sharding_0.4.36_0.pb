
xla::ifrt::SingleDeviceShardingdevice