#pragma once
// The designer as the GUI tests open it: shown at 1200 × 800, exposed, with `path` loaded.
#include "Designer.h"

#include <QtTest>
#include <memory>

namespace hips::test {

inline const QString kDefaultTopology = QStringLiteral(HIPS_SOURCE_DIR "/resources/topologies/default.json");

inline void openShownDesigner(std::unique_ptr<Designer>& d, const QString& path = kDefaultTopology) {
    d = std::make_unique<Designer>();
    d->resize(1200, 800);
    d->show();
    QVERIFY(QTest::qWaitForWindowExposed(d.get()));
    QString error;
    QVERIFY2(d->openFile(path, &error), qPrintable(error));
}

}  // namespace hips::test
