#include "DataFormatRegistry.h"

namespace hips {

namespace {

using K = DataOption::Kind;

const DataOption kClasses{QStringLiteral("classes"),
                          K::TextList,
                          {},
                          QStringLiteral("the class names in label order (image-folder: the sub-folders to read); "
                                         "default: the labels as numbers, or the sub-folders in sorted order")};
const DataOption kHoldout{QStringLiteral("holdout"),
                          K::Number,
                          {},
                          QStringLiteral("a fraction in (0, 0.9] of the samples the party keeps out of training and tests "
                                         "each evaluated round's model on, at the party (per-party accuracy: counts only)")};

}  // namespace

const DataOption* DataFormatInfo::option(const QString& wanted) const {
    for (const DataOption& o : options)
        if (o.name == wanted) return &o;
    return nullptr;
}

const QList<DataFormatInfo>& DataFormatRegistry::all() {
    static const QList<DataFormatInfo> list{
        {QStringLiteral("idx"),
         QStringLiteral("MNIST/Fashion-MNIST IDX files of unsigned bytes (.gz or raw)"),
         QStringLiteral("a folder holding the images and labels files"),
         {{QStringLiteral("images"), K::Text, QStringLiteral("train-images-idx3-ubyte.gz"),
           QStringLiteral("the images file in the folder (N x H x W bytes)"), QStringLiteral("t10k-images-idx3-ubyte.gz")},
          {QStringLiteral("labels"), K::Text, QStringLiteral("train-labels-idx1-ubyte.gz"),
           QStringLiteral("the labels file in the folder (N bytes)"), QStringLiteral("t10k-labels-idx1-ubyte.gz")},
          kClasses,
          kHoldout},
         {QStringLiteral("images"), QStringLiteral("labels")},
         true},
        {QStringLiteral("cifar-binary"),
         QStringLiteral("CIFAR-10's binary batches: records of a label byte and 3 x 32 x 32 bytes"),
         QStringLiteral("a folder of .bin batches, or one .bin file"),
         {{QStringLiteral("files"), K::TextList,
           QStringLiteral("data_batch_1.bin,data_batch_2.bin,data_batch_3.bin,"
                          "data_batch_4.bin,data_batch_5.bin"),
           QStringLiteral("the batches in the folder to read"), QStringLiteral("test_batch.bin")},
          kClasses,
          kHoldout},
         {QStringLiteral("files")},
         true},
        {QStringLiteral("image-folder"),
         QStringLiteral("one sub-folder per class of PNG or JPEG images, decoded and resized "
                        "to the model's input"),
         QStringLiteral("the folder whose sub-folders are the classes"),
         {kClasses, kHoldout},
         {QStringLiteral("classes")},
         true},
        {QStringLiteral("npy"),
         QStringLiteral("two NumPy .npy arrays: features (float32 or uint8) and labels (int64, "
                        "int32 or uint8), C order"),
         QStringLiteral("a folder holding the two arrays"),
         {{QStringLiteral("x"), K::Text, QStringLiteral("x.npy"), QStringLiteral("the features array's file")},
          {QStringLiteral("y"), K::Text, QStringLiteral("y.npy"), QStringLiteral("the labels array's file")},
          kClasses,
          kHoldout},
         {QStringLiteral("x"), QStringLiteral("y")},
         false},
        {QStringLiteral("npz"),
         QStringLiteral("a NumPy .npz archive (numpy.savez, compressed or not) of a features "
                        "and a labels array"),
         QStringLiteral("the .npz file"),
         {{QStringLiteral("x"), K::Text, QStringLiteral("x"), QStringLiteral("the features array's name in the archive")},
          {QStringLiteral("y"), K::Text, QStringLiteral("y"), QStringLiteral("the labels array's name in the archive")},
          kClasses,
          kHoldout},
         {},
         false},
        {QStringLiteral("csv"),
         QStringLiteral("a text table with a header row: a label column and numeric feature columns"),
         QStringLiteral("the .csv file"),
         {{QStringLiteral("label"), K::Text, QStringLiteral("label"), QStringLiteral("the label column's name")},
          {QStringLiteral("delimiter"), K::Text, QStringLiteral(","), QStringLiteral("the one character between fields")},
          kClasses,
          kHoldout},
         {},
         false},
    };
    return list;
}

const DataFormatInfo* DataFormatRegistry::find(const QString& name) {
    for (const DataFormatInfo& f : all())
        if (f.name == name) return &f;
    return nullptr;
}

QStringList DataFormatRegistry::names() {
    QStringList out;
    for (const DataFormatInfo& f : all()) out << f.name;
    return out;
}

QString DataFormatRegistry::help() {
    QString out;
    for (const DataFormatInfo& f : all()) {
        out += QStringLiteral("  %1  %2\n      path: %3\n").arg(f.name.leftJustified(13), f.summary, f.pathHelp);
        for (const DataOption& o : f.options)
            out +=
                QStringLiteral("      %1: %2%3%4\n")
                    .arg(o.name, o.help, o.defaultValue.isEmpty() ? QString() : QStringLiteral(" (default %1)").arg(o.defaultValue),
                         o.evaluationDefault.isEmpty() ? QString() : QStringLiteral(" (in evaluation_data: %1)").arg(o.evaluationDefault));
    }
    return out;
}

}  // namespace hips
