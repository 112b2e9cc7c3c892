#pragma once
// Image classification data: N x C x H x W float images, normalised per channel, int64 labels.
#include "Partition.h"
#include "TorchPch.h"
#include "Topology.h"

namespace hips {

struct Dataset {
    torch::Tensor images;  // float32 [N,C,H,W]: 1 x 28 x 28 (Fashion-MNIST), 3 x 32 x 32 (CIFAR-10)
    torch::Tensor labels;  // int64 [N] class indices; a regression's float32 [N, outputs] targets
    QStringList classNames;  // each label's name, where the source names them (an image folder's sub-folders)
    QStringList featureNames;  // each feature column's name, where the source names them (a csv's header)

    int64_t size() const { return labels.defined() ? labels.size(0) : 0; }
    Dataset subset(const torch::Tensor& indices) const;
};

enum class Split { Train, Test };

// Fashion-MNIST from IDX .gz files (Debian's dataset-fashion-mnist by default).
// With `parts` > 1, only shard `part` under `spec` (Partition.h).
Dataset loadFashionMnist(const QString& dir, Split split, int part = 0, int parts = 1, int seed = 1, const PartitionSpec& spec = {});
// CIFAR-10's binary batches (data_batch_1..5.bin, test_batch.bin) from `dir`, sharded as above.
Dataset loadCifar10(const QString& dir, Split split, int part = 0, int parts = 1, int seed = 1, const PartitionSpec& spec = {});
// A learnable synthetic set: 10 fixed class prototypes plus noise (fast tests).
Dataset makeSyntheticDataset(int samples, int seed, Split split);
// The dataset named in the settings; with `parts` > 1 only shard `part` of it under the settings'
// partition. The shard is cut from the raw bytes before conversion to float, so a worker converts
// only its own share.
Dataset loadDataset(const TrainingSettings& settings, Split split, int part = 0, int parts = 1);

// IID partition: a seeded permutation cut into `parts` nearly equal shards.
torch::Tensor iidShard(int64_t n, int part, int parts, int seed);
// The rows of shard `part` of a set whose labels are `labels` (int64 or uint8, N).
torch::Tensor shardRows(const torch::Tensor& labels, int part, int parts, int seed, const PartitionSpec& spec, int classes = 10);
PartitionSpec partitionSpec(const TrainingSettings& settings);

}  // namespace hips
