#pragma once
// What can be dragged onto the canvas: a party, a host, and each role.
#include "TopologyEdits.h"

#include <QListWidget>

namespace hips {

// One thing the palette offers: its label, icon (":/icons/<icon>.svg") and tooltip.
struct PaletteEntry {
    PaletteItem item;
    QString label, icon, tip;
};

class Palette : public QListWidget {
    Q_OBJECT
public:
    explicit Palette(QWidget* parent = nullptr);
    static QList<PaletteEntry> entries();  // also the canvas menu's "Add here"

protected:
    QMimeData* mimeData(const QList<QListWidgetItem*>& items) const override;
    QStringList mimeTypes() const override;
};

}  // namespace hips
