
xla::ifrt::SingleDeviceSharding
device