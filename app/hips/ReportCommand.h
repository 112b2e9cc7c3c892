#pragma once
#include <QStringList>

namespace hips {

// hips report RUN --out FILE.{html,pdf,csv,json} [--history PATH] [--target ACC]
int reportCommand(const QStringList& arguments);

}  // namespace hips
