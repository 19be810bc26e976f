
xla::ifrt::SingleDeviceSharding
device