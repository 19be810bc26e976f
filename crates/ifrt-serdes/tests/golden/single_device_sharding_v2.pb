
xla::ifrt::SingleDeviceSharding 