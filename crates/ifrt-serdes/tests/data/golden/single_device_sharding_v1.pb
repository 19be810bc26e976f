
xla::ifrt::SingleDeviceShardingpinned_host