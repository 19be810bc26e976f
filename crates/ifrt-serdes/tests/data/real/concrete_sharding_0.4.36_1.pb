
xla::ifrt::ConcreteSharding



"device